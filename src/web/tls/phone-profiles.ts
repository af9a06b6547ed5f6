import crypto from 'node:crypto';

/** SHA-256 fingerprint as phones and browsers show it: "AB:CD:...". */
export function certificateFingerprint(certificatePem: string): string {
  return new crypto.X509Certificate(certificatePem).fingerprint256;
}

/** A UUID derived from the certificate, so installing the profile again replaces it instead of adding a copy. */
function uuidFor(certificateDer: Buffer, purpose: string): string {
  const hex = crypto.createHash('sha256').update(purpose).update(certificateDer).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`.toUpperCase();
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * An iOS/macOS configuration profile (unsigned) whose one payload is the CA certificate
 * (com.apple.security.root). After installing it, iOS still asks the person to switch on full
 * trust in Settings → General → About → Certificate Trust Settings.
 */
export function caMobileConfig(options: { certificateDer: Buffer; commonName: string }): string {
  const identifier = `local.hearth.ca.${uuidFor(options.certificateDer, 'id').slice(0, 8).toLowerCase()}`;
  const name = escapeXml(options.commonName);
  const base64 = options.certificateDer.toString('base64').replace(/.{1,64}/g, '\t\t\t$&\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>PayloadContent</key>
	<array>
		<dict>
			<key>PayloadCertificateFileName</key>
			<string>hearth-ca.cer</string>
			<key>PayloadContent</key>
			<data>
${base64}			</data>
			<key>PayloadDescription</key>
			<string>Lets this device trust the Hearth server on your home network.</string>
			<key>PayloadDisplayName</key>
			<string>${name}</string>
			<key>PayloadIdentifier</key>
			<string>${identifier}.certificate</string>
			<key>PayloadType</key>
			<string>com.apple.security.root</string>
			<key>PayloadUUID</key>
			<string>${uuidFor(options.certificateDer, 'certificate')}</string>
			<key>PayloadVersion</key>
			<integer>1</integer>
		</dict>
	</array>
	<key>PayloadDescription</key>
	<string>Installs the certificate of your own Hearth server, so this device can open it over HTTPS.</string>
	<key>PayloadDisplayName</key>
	<string>Hearth (home server)</string>
	<key>PayloadIdentifier</key>
	<string>${identifier}</string>
	<key>PayloadRemovalDisallowed</key>
	<false/>
	<key>PayloadType</key>
	<string>Configuration</string>
	<key>PayloadUUID</key>
	<string>${uuidFor(options.certificateDer, 'profile')}</string>
	<key>PayloadVersion</key>
	<integer>1</integer>
</dict>
</plist>
`;
}
