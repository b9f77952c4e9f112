const CAPTURE = 0x4f676753; // "OggS"
const HEADER_SIZE = 27;
const OPUS_HEAD = 'OpusHead';

/**
 * Audio length of an Ogg/Opus buffer in milliseconds, from the last complete page's granule
 * position minus the encoder pre-skip. Null when there is no Opus stream or no page after its head.
 * Works on a partial (still downloading) stream: an incomplete last page is ignored.
 */
export function oggOpusDurationMs(buffer: Uint8Array): number | null {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let serial: number | null = null;
  let preSkip = 0;
  let lastGranule: bigint | null = null;
  let offset = 0;
  while (offset + HEADER_SIZE <= buffer.length) {
    if (view.getUint32(offset) !== CAPTURE || buffer[offset + 4] !== 0) {
      offset = nextCapture(view, offset + 1);
      continue;
    }
    const segments = buffer[offset + 26] ?? 0;
    const dataStart = offset + HEADER_SIZE + segments;
    if (dataStart > buffer.length) break;
    let dataLength = 0;
    for (let i = offset + HEADER_SIZE; i < dataStart; i++) dataLength += buffer[i] ?? 0;
    const end = dataStart + dataLength;
    if (end > buffer.length) break;
    const pageSerial = view.getUint32(offset + 14, true);
    if (serial === null && isOpusHead(buffer, dataStart, dataLength)) {
      serial = pageSerial;
      preSkip = view.getUint16(dataStart + 10, true);
    } else if (serial === pageSerial) {
      const granule = view.getBigInt64(offset + 6, true);
      if (granule >= 0n) lastGranule = granule;
    }
    offset = end;
  }
  if (lastGranule === null) return null;
  const samples = Math.max(0, Number(lastGranule) - preSkip);
  return (samples / 48_000) * 1000;
}

function isOpusHead(buffer: Uint8Array, start: number, length: number): boolean {
  if (length < 19) return false;
  for (let i = 0; i < OPUS_HEAD.length; i++) {
    if (buffer[start + i] !== OPUS_HEAD.charCodeAt(i)) return false;
  }
  return true;
}

/** Offset of the next "OggS" at or after `from`, or the buffer length when there is none. */
function nextCapture(view: DataView, from: number): number {
  for (let i = from; i + 4 <= view.byteLength; i++) {
    if (view.getUint32(i) === CAPTURE) return i;
  }
  return view.byteLength;
}
