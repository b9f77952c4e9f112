export { PREVIEW_TEXT, type PreviewAudio, PreviewCache, type PreviewId } from './cache.ts';
