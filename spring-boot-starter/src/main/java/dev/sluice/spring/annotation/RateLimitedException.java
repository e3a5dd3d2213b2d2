package dev.sluice.spring.annotation;

import dev.sluice.client.middleware.Admission;
import dev.sluice.core.Decision;
import dev.sluice.core.headers.RateLimitHeaders.Header;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimited} call that was not let through: what an HTTP gate would answer instead of
 * calling the handler, so that an exception handler can answer the same way ({@link
 * RateLimitedExceptionHandler} does by default).
 */
public class RateLimitedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String rule;
  private final int status;
  private final transient List<Header> headers;
  private final String body;
  private final transient @Nullable Decision decision;

  public RateLimitedException(String rule, Admission admission) {
    super("rate limit exceeded for '" + rule + "'");
    this.rule = rule;
    this.status = admission.status();
    this.headers = admission.headers();
    this.body = Objects.requireNonNull(admission.body());
    this.decision = admission.decision();
  }

  /** The rule that denied. */
  public String rule() {
    return rule;
  }

  /** The status a gate answers: 429, 503 for a failure policy's denial, 400 for a bad key. */
  public int status() {
    return status;
  }

  /** The rate-limit headers, as every Sluice surface writes them, {@code Retry-After} included. */
  public List<Header> headers() {
    return headers;
  }

  /** The JSON body a gate answers. */
  public String body() {
    return body;
  }

  /** The limiter's decision; null for a bad key. */
  public @Nullable Decision decision() {
    return decision;
  }
}
