import type { PhotoMime } from '../../storage/attachment-store.js';

/** The browser resizes to 1,600 px and about 0.3 MB; these limits are for anything else that posts. */
export const photoLimits = {
  maxBytes: 8 * 1024 * 1024,
  maxLongSide: 4096,
  maxPixels: 16_000_000,
  perMessage: 4,
  /** Uploaded but not sent yet, at once. */
  maxUnsent: 100,
  /** Unsent uploads are deleted after this long. */
  unsentLifetimeMs: 24 * 3_600_000,
  /** The small JPEG shown in the thread (the browser makes it 480 px). */
  thumbnailMaxBytes: 200 * 1024,
  thumbnailMaxLongSide: 640,
} as const;

/** A photo that cannot be used; the text says what to do instead, the status code is the upload route's answer. */
export class PhotoError extends Error {
  override name = 'PhotoError';
  constructor(
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * What the first bytes say the file is. The Content-Type a client sends is not trusted: the
 * stored type (and so the type the photo is served with) comes from here.
 */
export function detectPhotoType(bytes: Uint8Array): PhotoMime | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((byte, index) => bytes[index] === byte)) return 'image/png';
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * Checks an upload is a photo of a usable size; returns its type and dimensions, or throws
 * PhotoError. image-size is loaded with the first photo: a Hearth nobody sends photos to never
 * loads it.
 */
export async function checkPhoto(bytes: Buffer): Promise<{ mime: PhotoMime; width: number; height: number }> {
  if (bytes.length === 0) throw new PhotoError('The photo was empty. Attach it again.', 400);
  if (bytes.length > photoLimits.maxBytes) {
    throw new PhotoError(`That photo is ${megabytes(bytes.length)}; the limit is ${megabytes(photoLimits.maxBytes)}.`, 413);
  }
  const mime = detectPhotoType(bytes);
  if (!mime) throw new PhotoError('That file is not a photo. Attach a JPEG, PNG or WebP image.', 415);
  const { imageSize } = await import('image-size');
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    throw new PhotoError('That photo could not be read (the file looks damaged). Attach another one.', 400);
  }
  const width = size.width ?? 0;
  const height = size.height ?? 0;
  if (width <= 0 || height <= 0) throw new PhotoError('That photo could not be read (it has no size). Attach another one.', 400);
  if (Math.max(width, height) > photoLimits.maxLongSide || width * height > photoLimits.maxPixels) {
    throw new PhotoError(
      `That photo is ${width.toLocaleString('en')}×${height.toLocaleString('en')} px; the limit is ${photoLimits.maxLongSide.toLocaleString('en')} px on its long side.`,
      413,
    );
  }
  return { mime, width, height };
}

/** The thread's small version of a photo: a JPEG, small in bytes and pixels. */
export async function checkThumbnail(bytes: Buffer): Promise<void> {
  if (bytes.length > photoLimits.thumbnailMaxBytes) {
    throw new PhotoError(`That thumbnail is ${Math.round(bytes.length / 1024)} KB; the limit is ${photoLimits.thumbnailMaxBytes / 1024} KB.`, 413);
  }
  if (detectPhotoType(bytes) !== 'image/jpeg') throw new PhotoError('A thumbnail must be a JPEG.', 415);
  const { width, height } = await checkPhoto(bytes);
  if (Math.max(width, height) > photoLimits.thumbnailMaxLongSide) {
    throw new PhotoError(`That thumbnail is ${width}×${height} px; the limit is ${photoLimits.thumbnailMaxLongSide} px on its long side.`, 413);
  }
}
