package dev.sluice.rest;

import java.nio.ByteBuffer;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * Jetty's error page, replaced by the {@code {"error", "message"}} of docs/rest-api.md, "Errors".
 *
 * <p>Some requests never reach a Javalin route: Jetty's parser refuses them first. A garbled
 * request line or bad percent-encoding ({@code GET /v1/limits/%zz/x}) is a 400, a request line
 * longer than the header buffer a 414, headers over the limit a 431, {@code HTTP/9.9} a 505. Jetty
 * then calls the server's error handler, whose default writes an HTML page. This one, installed
 * with {@link org.eclipse.jetty.server.Server#setErrorHandler}, writes the same {@link ErrorBody}
 * as every other refusal, with a code from {@link ApiError} chosen by status, and Jetty's short
 * reason ("Bad URI", "Unknown Version") in the message when it is plain words. Nothing was routed,
 * so nothing was counted.
 */
final class JettyErrors extends ErrorHandler {
  /** A Jetty reason we repeat: short plain words, never an exception's {@code toString()}. */
  private static final Pattern PLAIN_REASON = Pattern.compile("[A-Za-z0-9 ,'()/_-]{1,80}");

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus();
    String reason = asText(request.getAttribute(ERROR_MESSAGE));
    if (request.getAttribute(ERROR_EXCEPTION) instanceof HttpException refusal) {
      status = refusal.getCode();
      response.setStatus(status);
      reason = refusal.getReason();
    }
    response.getHeaders().put(ERROR_CACHE_CONTROL);
    if (HttpStatus.hasNoBody(status)) {
      callback.succeeded();
      return true;
    }
    byte[] body = Json.write(body(status, reason));
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }

  /** The answer for a request Jetty refused with {@code status}, for {@code reason}. */
  static ErrorBody body(int status, @Nullable String reason) {
    String why =
        reason != null && PLAIN_REASON.matcher(reason).matches() && !reason.contains("Exception")
            ? " (" + reason + ")"
            : "";
    return switch (status) {
      case 400 ->
          new ErrorBody(
              ApiError.MALFORMED_REQUEST,
              "the request is not valid HTTP/1.1"
                  + why
                  + "; check the request line, the percent-encoding of the path and the headers");
      case 413 -> new ErrorBody(ApiError.BODY_TOO_LARGE, "the request body is too large" + why);
      case 414 ->
          new ErrorBody(
              ApiError.URI_TOO_LONG,
              "the request line is longer than the server reads"
                  + why
                  + "; keys and rule names are at most 512 bytes");
      case 431 ->
          new ErrorBody(
              ApiError.HEADERS_TOO_LARGE,
              "the request headers are larger than the server reads" + why + "; send fewer");
      case 505 ->
          new ErrorBody(
              ApiError.HTTP_VERSION_NOT_SUPPORTED,
              "the request line names an HTTP version this server does not speak"
                  + why
                  + "; use HTTP/1.1");
      default ->
          status >= 500
              ? new ErrorBody(
                  status == 503 ? ApiError.UNAVAILABLE : ApiError.INTERNAL_ERROR,
                  "the server could not answer the request" + why + "; see the node's log")
              : new ErrorBody(
                  ApiError.MALFORMED_REQUEST, "the request was refused with " + status + why);
    };
  }

  private static @Nullable String asText(@Nullable Object attribute) {
    return attribute instanceof String text ? text : null;
  }
}
