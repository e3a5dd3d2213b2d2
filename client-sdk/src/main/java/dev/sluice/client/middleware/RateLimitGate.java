package dev.sluice.client.middleware;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What every middleware does: map the request to a key, ask the limiter under one rule, and answer
 * a denial with 429, the headers of {@link RateLimitHeaders} and a JSON error body. Allowed
 * requests get the same headers and go on.
 *
 * <pre>{@code
 * RateLimitGate gate = RateLimitGate.builder(sluice)
 *     .rule("login")
 *     .key(KeyExtractor.clientIp(TrustedProxies.of("10.0.0.0/8")))
 *     .build();
 * }</pre>
 *
 * <h2>Waiting instead of 429</h2>
 *
 * With {@link Builder#waitUpTo(Duration)} a request the rule cannot admit now but can within that
 * wait is booked by the owner (one call) and its thread waits the delay before going on, and so
 * does a request a leaky bucket admitted with a shaping delay. Without it, delays are not waited
 * (the answer's headers still carry the state) and a request is admitted or answered 429 at once.
 *
 * <h2>Concurrency rules</h2>
 *
 * Under a concurrency rule an admitted request holds a permit while it is handled: {@link #enter}
 * answers an {@link Admission} whose {@link Admission#release()} each middleware calls after the
 * handler, even when it threw.
 */
public final class RateLimitGate {
  private final RateLimiter limiter;
  private final String rule;
  private final KeyExtractor keyExtractor;
  private final long cost;
  private final @Nullable Duration maxWait;

  private RateLimitGate(Builder builder) {
    this.limiter = Objects.requireNonNull(builder.limiter, "limiter");
    this.rule = Rule.checkName(builder.rule);
    this.keyExtractor = Objects.requireNonNull(builder.key, "key");
    this.cost = builder.cost;
    this.maxWait = builder.maxWait;
  }

  public static Builder builder(RateLimiter limiter) {
    return new Builder(limiter);
  }

  public String rule() {
    return rule;
  }

  /** The decision for {@code request}, or {@code null} when it has no key under this gate. */
  public @Nullable Decision decide(HttpServletRequest request) {
    String key = keyExtractor.keyOf(request);
    if (key == null) {
      return null;
    }
    return limiter.tryAcquire(check(key));
  }

  /**
   * Decides {@code request} and, when the gate waits and the request was admitted with a delay,
   * waits it on this thread. Returns null when the request has no key under this gate (it goes on
   * unlimited).
   *
   * @throws InterruptedIOException if interrupted while waiting; the permit it held is given back
   */
  public @Nullable Admission enter(HttpServletRequest request) throws InterruptedIOException {
    String key = keyExtractor.keyOf(request);
    if (key == null) {
      return null;
    }
    Admission admission = new Admission(limiter, rule, key, limiter.tryAcquire(check(key)));
    Decision decision = admission.decision();
    if (maxWait != null && decision.allowed() && decision.delayNanos() > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(decision.delayNanos());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        admission.release();
        throw new InterruptedIOException("interrupted while waiting for rule '" + rule + "'");
      }
    }
    return admission;
  }

  private Check check(String key) {
    Check check = Check.of(rule, key, cost);
    return maxWait == null ? check : check.withMaxWait(maxWait);
  }

  /** The headers to answer {@code decision} with. */
  public Map<String, String> headers(Decision decision) {
    // Only a limiter's answer has a policy to describe; a failure answer must not wait for rules.
    boolean fromLimiter = decision.decidedBy().reportsCounts();
    return RateLimitHeaders.of(rule, fromLimiter ? policy() : null, decision);
  }

  /** The rule's policy for the window in {@code RateLimit-Policy}; none if it cannot be read. */
  private @Nullable Policy policy() {
    try {
      return limiter.rules().find(rule).map(Rule::policy).orElse(null);
    } catch (RuntimeException e) {
      return null; // the grid is unreachable: the headers go without the window
    }
  }

  /**
   * {@link #enter(HttpServletRequest)} for a servlet request, writing the headers; on a denial also
   * the 429 answer. The caller lets an admitted request go on and releases its admission after the
   * handler ({@link Admission#release()}, in a {@code finally}).
   *
   * @return the admission (see {@link Admission#admitted()}), or null: no key, go on unlimited
   */
  public @Nullable Admission enter(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    Admission admission = enter(request);
    if (admission == null) {
      return null;
    }
    Decision decision = admission.decision();
    headers(decision).forEach(response::setHeader);
    if (decision.allowed()) {
      return admission;
    }
    response.setStatus(429);
    response.setContentType("application/json");
    response.setCharacterEncoding("UTF-8");
    response.getOutputStream().write(errorBody(decision).getBytes(StandardCharsets.UTF_8));
    return admission;
  }

  public String errorBody(Decision decision) {
    return RateLimitHeaders.errorBody(rule, decision);
  }

  /** Options of a {@link RateLimitGate}: the rule is required; the key is the client IP. */
  public static final class Builder {
    private final RateLimiter limiter;
    private String rule = "";
    private KeyExtractor key = KeyExtractor.clientIp();
    private long cost = 1;
    private @Nullable Duration maxWait;

    private Builder(RateLimiter limiter) {
      this.limiter = limiter;
    }

    public Builder rule(String rule) {
      this.rule = rule;
      return this;
    }

    public Builder key(KeyExtractor key) {
      this.key = key;
      return this;
    }

    /**
     * Waits instead of answering 429: a request the rule can admit within {@code maxWait} is booked
     * and waits its delay (so does a leaky bucket's shaped request); {@link Duration#ZERO} books
     * nothing ahead but still waits a leaky bucket's delay. At most {@link Check#MAX_WAIT}.
     */
    public Builder waitUpTo(Duration maxWait) {
      // Check validates the range, with the message every runtime gives.
      Check.of("probe", "probe", 1).withMaxWait(Objects.requireNonNull(maxWait, "maxWait"));
      this.maxWait = maxWait;
      return this;
    }

    /** Permits each request costs; 1 by default. */
    public Builder cost(long cost) {
      if (cost < 1) {
        throw new IllegalArgumentException("cost: must be at least 1, was " + cost);
      }
      this.cost = cost;
      return this;
    }

    public RateLimitGate build() {
      return new RateLimitGate(this);
    }
  }
}
