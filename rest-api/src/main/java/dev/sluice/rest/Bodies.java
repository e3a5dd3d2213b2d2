package dev.sluice.rest;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

/** Reads request bodies: JSON content type (415), bounded size (413), strict JSON (400). */
final class Bodies {
  private final int maxBodyBytes;

  Bodies(int maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  <T> T read(Context ctx, Class<T> type) {
    requireJson(ctx);
    return Json.read(readBounded(ctx), type);
  }

  private static void requireJson(Context ctx) {
    String contentType = ctx.header("Content-Type");
    String mediaType =
        contentType == null ? "" : contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    if (!mediaType.equals("application/json")) {
      throw new ApiError(
          415,
          ApiError.UNSUPPORTED_MEDIA_TYPE,
          "send the body as JSON with 'Content-Type: application/json'"
              + (contentType == null
                  ? "; no Content-Type was given"
                  : ", was '" + contentType + "'"));
    }
  }

  private byte[] readBounded(Context ctx) {
    long declared = ctx.req().getContentLengthLong();
    if (declared > maxBodyBytes) {
      throw tooLarge(declared);
    }
    try (InputStream in = ctx.req().getInputStream()) {
      if (declared >= 0) {
        // The usual case: one array of the declared size. Reading up to the limit instead costs
        // a buffer per 8 KB of limit and a copy, on every request.
        byte[] body = new byte[(int) declared];
        if (in.readNBytes(body, 0, body.length) < body.length) {
          throw new IOException("the body ended before its declared length");
        }
        return body;
      }
      byte[] body = in.readNBytes(maxBodyBytes + 1);
      if (body.length > maxBodyBytes) {
        throw tooLarge(-1);
      }
      return body;
    } catch (IOException e) {
      // The client's fault, not ours: a body shorter than its Content-Length, broken chunked
      // framing, a connection closed mid-body. Found by RestFuzzTest, which got 500s here. The
      // exception's class name stays out of the message (docs/rest-api.md, "Errors": no Java in
      // answers).
      throw new ApiError(
          400,
          ApiError.MALFORMED_JSON,
          "the request body could not be read: it ended before its declared length or its"
              + " chunked framing is broken");
    }
  }

  private ApiError tooLarge(long declared) {
    String size = declared >= 0 ? declared + " bytes" : "larger than that";
    return new ApiError(
        413,
        ApiError.BODY_TOO_LARGE,
        "request bodies are limited to "
            + maxBodyBytes
            + " bytes and this one is "
            + size
            + "; split large batches into several requests");
  }
}
