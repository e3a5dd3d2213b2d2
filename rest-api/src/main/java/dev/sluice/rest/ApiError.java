package dev.sluice.rest;

/**
 * A request the API refuses, with the HTTP status, a stable machine-readable code and a message a
 * human can act on. Thrown anywhere in a handler; {@link SluiceApi} turns it into {@code {"error":
 * code, "message": message}} in one place. Every code the API can answer is a constant here, so the
 * list is easy to document and to test.
 */
public final class ApiError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** 400: the body is not JSON at all (syntax error, trailing garbage, empty body). */
  public static final String MALFORMED_JSON = "malformed_json";

  /**
   * 400: the request is not valid HTTP, so Jetty refused it before routing: a garbled request line,
   * bad or ambiguous percent-encoding in the path ({@code %zz}, {@code %2F}), a malformed header,
   * conflicting framing ({@code Content-Length} twice, a bad chunk size).
   */
  public static final String MALFORMED_REQUEST = "malformed_request";

  /** 400: the body has a field the endpoint does not know. */
  public static final String UNKNOWN_FIELD = "unknown_field";

  /** 400: a field is missing, of the wrong type, or out of bounds; the message names it. */
  public static final String INVALID_FIELD = "invalid_field";

  /** 401: an admin route was called without {@code Authorization: Bearer <token>}. */
  public static final String UNAUTHORIZED = "unauthorized";

  /** 403: an admin route was called with a token that is not the admin token. */
  public static final String FORBIDDEN = "forbidden";

  /**
   * 401: {@code POST /v1/release} of a bare count, without the admin token, on a rule whose
   * releases need proof: give the receipt the check answered (or a permit id).
   */
  public static final String PROOF_REQUIRED = "proof_required";

  /**
   * 403: {@code POST /v1/release} of a receipt this grid did not issue: altered, made up, or
   * another cluster's.
   */
  public static final String RECEIPT_NOT_ISSUED_HERE = "receipt_not_issued_here";

  /** 409: {@code POST /v1/release} of a receipt given back already; a receipt frees once. */
  public static final String RECEIPT_SPENT = "receipt_spent";

  /**
   * 410: {@code POST /v1/release} of a receipt whose window has ended: its permits count in no
   * window now, and nothing is freed.
   */
  public static final String RECEIPT_EXPIRED = "receipt_expired";

  /** 404: the named rule does not exist. */
  public static final String UNKNOWN_RULE = "unknown_rule";

  /** 404: no route has this path. */
  public static final String NOT_FOUND = "not_found";

  /** 404: {@code POST /v1/commit} of a reservation the key holds none of (never issued, reset). */
  public static final String RESERVATION_UNKNOWN = "reservation_unknown";

  /** 409: {@code POST /v1/commit} of a reservation committed already; the first commit stands. */
  public static final String RESERVATION_COMMITTED = "reservation_committed";

  /** 410: {@code POST /v1/commit} after the reservation's ttl: it was settled at its estimate. */
  public static final String RESERVATION_EXPIRED = "reservation_expired";

  /** 405: the path exists, but not with this method. */
  public static final String METHOD_NOT_ALLOWED = "method_not_allowed";

  /** 413: the body is larger than the API accepts. */
  public static final String BODY_TOO_LARGE = "body_too_large";

  /** 414: the request line (path and query) is longer than the server reads. */
  public static final String URI_TOO_LONG = "uri_too_long";

  /** 415: the body is not declared as {@code application/json}. */
  public static final String UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type";

  /** 431: the request headers together are larger than the server reads. */
  public static final String HEADERS_TOO_LARGE = "headers_too_large";

  /** 500: a fault on our side; the message says nothing more, the log says the rest. */
  public static final String INTERNAL_ERROR = "internal_error";

  /** 503: the limiter cannot decide right now (e.g. the grid is not reachable). */
  public static final String UNAVAILABLE = "unavailable";

  /**
   * 505: the request line names an HTTP version other than 1.0 or 1.1, or none (Jetty reads that as
   * HTTP/0.9). The one 5xx a client can cause, as RFC 9110 §15.6.6 defines it.
   */
  public static final String HTTP_VERSION_NOT_SUPPORTED = "http_version_not_supported";

  private final int status;
  private final String code;

  public ApiError(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  public static ApiError invalidField(String field, String problem) {
    return new ApiError(400, INVALID_FIELD, field + ": " + problem);
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }
}
