/**
 * The image's HEALTHCHECK: exits 0 when `/healthz` on HTTP_PORT answers 200 within 4 s, else 1.
 * A separate script because the image has no curl.
 */
const port = process.env.HTTP_PORT;
if (port === undefined || port === '') {
  process.stderr.write('HTTP_PORT is not set: the health endpoint is off\n');
  process.exit(1);
}
try {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
    signal: AbortSignal.timeout(4000),
  });
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  process.stderr.write(`/healthz unreachable: ${(error as Error).message}\n`);
  process.exit(1);
}
