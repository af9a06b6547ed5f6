import qrcode from 'qrcode-terminal';

/** A QR code of the address, drawn with block characters for the start-up lines in a terminal. */
export function terminalQrCode(address: string): string {
  let drawing = '';
  // The callback runs synchronously; without one the library would print by itself.
  qrcode.generate(address, { small: true }, (output) => (drawing = output));
  return drawing;
}

/** What the start-up lines add with TLS=auto: where a phone goes first, as text and as a QR code. */
export function setupStartupLines(options: { httpsAddress: string; setupAddress: string | undefined; mdnsAddress: string | undefined }): string[] {
  const lines = [''];
  if (options.setupAddress) {
    lines.push('New phone? Scan this, then follow the steps to trust Hearth (once per device):', `  ${options.setupAddress}`);
  } else {
    lines.push('Scan this to open Hearth on a phone that already trusts its certificate:');
  }
  lines.push(terminalQrCode(options.setupAddress ?? options.httpsAddress));
  if (options.mdnsAddress) lines.push(`Also answers as ${options.mdnsAddress}`);
  return lines;
}
