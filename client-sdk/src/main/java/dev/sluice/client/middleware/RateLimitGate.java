package dev.sluice.client.middleware;

import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
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
 */
public final class RateLimitGate {
  private final RateLimiter limiter;
  private final String rule;
  private final KeyExtractor keyExtractor;
  private final long cost;

  private RateLimitGate(Builder builder) {
    this.limiter = Objects.requireNonNull(builder.limiter, "limiter");
    this.rule = Rule.checkName(builder.rule);
    this.keyExtractor = Objects.requireNonNull(builder.key, "key");
    this.cost = builder.cost;
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
    return limiter.tryAcquire(rule, key, cost);
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
   * Decides a servlet request and writes the headers; on a denial also writes the 429 answer.
   *
   * @return whether the request may go on
   */
  public boolean admit(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    Decision decision = decide(request);
    if (decision == null) {
      return true;
    }
    headers(decision).forEach(response::setHeader);
    if (decision.allowed()) {
      return true;
    }
    response.setStatus(429);
    response.setContentType("application/json");
    response.setCharacterEncoding("UTF-8");
    response.getOutputStream().write(errorBody(decision).getBytes(StandardCharsets.UTF_8));
    return false;
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
