/** Keeps the last few lines ffmpeg wrote to stderr, for error messages. */
export class StderrTail {
  readonly #maxChars: number;
  readonly #maxLines: number;
  #text = '';

  constructor(maxLines = 10, maxChars = 4096) {
    this.#maxLines = maxLines;
    this.#maxChars = maxChars;
  }

  /** Appends a chunk of stderr output, dropping the oldest text past the size limit. */
  push(chunk: Buffer | string): void {
    this.#text = (this.#text + chunk.toString()).slice(-this.#maxChars);
  }

  /** The last non-empty lines, oldest first. */
  lines(): string[] {
    return this.#text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .slice(-this.#maxLines);
  }
}
