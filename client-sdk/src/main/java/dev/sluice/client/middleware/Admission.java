package dev.sluice.client.middleware;

import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.headers.RateLimitHeaders.Header;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link RateLimitGate} made of one request, and what an adapter does with it:
 *
 * <pre>{@code
 * Admission admission = gate.enter(request);
 * admission.headers().forEach(h -> response.setHeader(h.name(), h.value()));
 * if (!admission.proceeds()) {
 *   // answer admission.status() with admission.body() (JSON), and do not call the handler
 * } else {
 *   // mark the request if admission.shadowBanned(), call the handler, then admission.release()
 * }
 * }</pre>
 *
 * <p>It proceeds when the limit admitted the request (after its wait, when the gate waits), when
 * the rule shadow-bans it (marked: {@link #shadowBanned()}), when the failure policy fails open,
 * and when the request has no key under the gate. It does not when the limit denied it (the gate's
 * reject status, 429 by default), when the failure policy fails closed (503 by default) and when
 * its key is one no runtime can hold or its cost is below 1 (400, nothing counted).
 *
 * <p>Under a concurrency rule an admitted request holds a permit ({@link Decision#permitId()}) that
 * {@link #release()} gives back once the handler is done, whether it returned or threw. Every
 * adapter releases in its "after" step; a release that cannot reach the limiter is dropped, and the
 * permit frees itself at its permitTtl.
 */
public final class Admission {
  private final @Nullable RateLimiter limiter;
  private final @Nullable PolicyRef ref;
  private final @Nullable String key;
  private final @Nullable Decision decision;
  private final boolean proceeds;
  private final int status;
  private final List<Header> headers;
  private final @Nullable String body;
  private final AtomicBoolean released = new AtomicBoolean();

  private Admission(
      @Nullable RateLimiter limiter,
      @Nullable PolicyRef ref,
      @Nullable String key,
      @Nullable Decision decision,
      boolean proceeds,
      int status,
      List<Header> headers,
      @Nullable String body) {
    this.limiter = limiter;
    this.ref = ref;
    this.key = key;
    this.decision = decision;
    this.proceeds = proceeds;
    this.status = status;
    this.headers = List.copyOf(headers);
    this.body = body;
  }

  /** A request the limiter decided, that goes on to the handler. */
  static Admission passed(
      RateLimiter limiter, PolicyRef ref, String key, Decision decision, List<Header> headers) {
    return new Admission(limiter, ref, key, decision, true, 0, headers, null);
  }

  /** A request the limiter decided, answered {@code status} with {@code body} instead. */
  static Admission answered(Decision decision, int status, List<Header> headers, String body) {
    return new Admission(null, null, null, decision, false, status, headers, body);
  }

  /** A request with no key under the gate: it goes on, unlimited. */
  static Admission unlimited() {
    return new Admission(null, null, null, null, true, 0, List.of(), null);
  }

  /** A request whose key no runtime can hold, or whose cost is below 1: 400, nothing counted. */
  static Admission invalid(InvalidPolicyException refusal) {
    return new Admission(
        null,
        null,
        null,
        null,
        false,
        400,
        List.of(),
        GateBodies.invalid(refusal.field(), refusal.getMessage()));
  }

  /** Whether the handler is called: see the class comment. */
  public boolean proceeds() {
    return proceeds;
  }

  /**
   * Whether the request proceeds under a shadow ban: the rule denied it, but it says {@code
   * onDenied: shadow_ban}, so the handler is called, the caller sees success, and the handler skips
   * the side effect. Adapters mark such a request ({@link RateLimitGate#SHADOW_BANNED_ATTRIBUTE}).
   */
  public boolean shadowBanned() {
    return proceeds && decision != null && decision.shadowBanned();
  }

  /** The status to answer instead of calling the handler; 0 when the request proceeds. */
  public int status() {
    return status;
  }

  /**
   * The headers to set on the answer, whether it proceeds or not: the rate-limit headers every
   * surface writes ({@link dev.sluice.core.headers.RateLimitHeaders}), none under a rule that
   * shadow-bans (they would tell a banned client), {@code Retry-After} only for a failure policy's
   * denial.
   */
  public List<Header> headers() {
    return headers;
  }

  /** The JSON body to answer instead of calling the handler; null when the request proceeds. */
  public @Nullable String body() {
    return body;
  }

  /** The limiter's decision; null when the request has no key or an invalid one. */
  public @Nullable Decision decision() {
    return decision;
  }

  /** Whether {@link #release()} has a permit to give back: a concurrency rule's admission. */
  public boolean holdsPermit() {
    return limiter != null && decision != null && decision.allowed() && decision.permitId() != 0;
  }

  /**
   * Gives back the permit this admission holds, once; nothing for a rule that holds no permits. A
   * failure to reach the limiter is not the request's failure: the permit expires on its own.
   */
  public void release() {
    if (!holdsPermit() || ref == null || key == null || !released.compareAndSet(false, true)) {
      return;
    }
    try {
      Objects.requireNonNull(limiter)
          .releasePermit(ref, key, Objects.requireNonNull(decision).permitId());
    } catch (RuntimeException e) {
      // The owner frees the permit at its expiry; the handler's answer must not change for this.
    }
  }
}
