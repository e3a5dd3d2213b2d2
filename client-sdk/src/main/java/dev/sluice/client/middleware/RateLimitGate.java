package dev.sluice.client.middleware;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.headers.RateLimitHeaders;
import dev.sluice.core.headers.RateLimitHeaders.Header;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The one HTTP gate: from a rule (or an inline policy), a key taken from the request and a cost, to
 * what the request gets. Every adapter (the servlet {@link SluiceFilter}, {@link SluiceJavalin},
 * Spring MVC's {@link SluiceHandlerInterceptor}, WebFlux's {@link SluiceWebFilter}) is a thin
 * translation of its request type into a {@link GateRequest} and of the {@link Admission} back.
 *
 * <pre>{@code
 * RateLimitGate gate = RateLimitGate.builder(sluice)
 *     .rule("login")
 *     .key(KeyExtractor.clientIp(TrustedProxies.of("10.0.0.0/8")))
 *     .build();
 * }</pre>
 *
 * <h2>What a request gets</h2>
 *
 * <table>
 *   <caption>The gate's answers</caption>
 *   <tr><th>the limiter said</th><th>the request</th><th>headers</th></tr>
 *   <tr><td>allowed</td><td>goes on (after its wait, when the gate waits)</td>
 *       <td>the rate-limit headers</td></tr>
 *   <tr><td>denied</td><td>429 (or the gate's {@link Builder#rejectStatus}), JSON body</td>
 *       <td>the rate-limit headers and {@code Retry-After}</td></tr>
 *   <tr><td>denied, the rule says {@code onDenied: shadow_ban}</td>
 *       <td>goes on, marked ({@link #SHADOW_BANNED_ATTRIBUTE})</td><td>none</td></tr>
 *   <tr><td>fail-open (the grid is unreachable)</td><td>goes on</td><td>none</td></tr>
 *   <tr><td>fail-closed (the grid is unreachable)</td>
 *       <td>503 (or {@link Builder#unavailableStatus}), JSON body</td>
 *       <td>{@code Retry-After}</td></tr>
 *   <tr><td>(the request has no key)</td><td>goes on, unlimited</td><td>none</td></tr>
 *   <tr><td>(the key is empty or over 512 bytes of UTF-8)</td><td>400, JSON body; nothing
 *       counted</td><td>none</td></tr>
 * </table>
 *
 * The headers are the ones every Sluice surface writes ({@link RateLimitHeaders}): each limit of
 * the rule in {@code RateLimit-Policy}, the limit that decided in {@code RateLimit} and {@code
 * X-RateLimit-*}. A rule that shadow-bans gets none, admitted or banned: a count that falls to zero
 * and stays there would tell a spammer that they were limited, and a banned answer must look like
 * an admitted one. A failure policy's answer knows no count.
 *
 * <h2>Waiting instead of 429</h2>
 *
 * With {@link Builder#waitUpTo(Duration)} a request the rule cannot admit now but can within that
 * wait is booked by the owner (one call) and goes on after its delay, and so does a request a leaky
 * bucket admitted with a shaping delay. {@link #enter} waits on the caller's thread; {@link
 * #enterAsync} completes after the delay on the JDK's shared timer, and never blocks its caller: it
 * is the entry of reactive adapters, whose caller is an event loop. Without it, delays are not
 * waited (the headers still carry the state) and a request is admitted or answered at once.
 *
 * <h2>Concurrency rules</h2>
 *
 * Under a concurrency rule an admitted request holds a permit while it is handled; each adapter
 * calls {@link Admission#release()} after the handler, even when it threw.
 */
public final class RateLimitGate {
  /**
   * The request (servlet, Javalin) or exchange (WebFlux) attribute that marks a request let through
   * under a shadow ban: {@link Boolean#TRUE}, absent otherwise. Each adapter has a helper that
   * reads it ({@link SluiceFilter#shadowBanned}, {@link SluiceHandlerInterceptor#shadowBanned},
   * {@link SluiceJavalin#shadowBanned}, {@link SluiceWebFilter#shadowBanned}).
   */
  public static final String SHADOW_BANNED_ATTRIBUTE = "dev.sluice.shadowBanned";

  private final RateLimiter limiter;
  private final PolicyRef ref;
  private final KeyExtractor keyExtractor;
  private final ToLongFunction<GateRequest> cost;
  private final @Nullable Duration maxWait;
  private final int rejectStatus;
  private final int unavailableStatus;

  private RateLimitGate(Builder builder) {
    this.limiter = Objects.requireNonNull(builder.limiter, "limiter");
    if (builder.ref == null) {
      throw new IllegalStateException("a gate needs a rule(...) or a policy(...)");
    }
    this.ref = builder.ref;
    this.keyExtractor = Objects.requireNonNull(builder.key, "key");
    this.cost = builder.cost;
    this.maxWait = builder.maxWait;
    this.rejectStatus = builder.rejectStatus;
    this.unavailableStatus = builder.unavailableStatus;
  }

  public static Builder builder(RateLimiter limiter) {
    return new Builder(limiter);
  }

  /** The rule (or inline policy) the gate limits by. */
  public PolicyRef ref() {
    return ref;
  }

  /**
   * Decides {@code request} and, when the gate waits and the request was admitted with a delay,
   * waits it on this thread.
   *
   * @throws InterruptedIOException if interrupted while waiting; the permit it held is given back
   */
  public Admission enter(GateRequest request) throws InterruptedIOException {
    String key = keyExtractor.keyOf(request);
    if (key == null) {
      return Admission.unlimited();
    }
    Check check;
    try {
      check = check(key, request);
    } catch (InvalidPolicyException e) {
      return Admission.invalid(e);
    }
    Decision decision = limiter.tryAcquire(check);
    Admission admission = admission(key, decision, policyNow(decision));
    long delay = delayOf(admission);
    if (delay > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        admission.release();
        throw new InterruptedIOException("interrupted while waiting for " + ref.label());
      }
    }
    return admission;
  }

  /**
   * {@link #enter}, without blocking the caller: the limiter's asynchronous call, the rule's policy
   * read without waiting, and a wait served by the JDK's shared timer. For reactive adapters, whose
   * caller is an event loop. A failure of the limiter fails the stage.
   */
  public CompletionStage<Admission> enterAsync(GateRequest request) {
    String key = keyExtractor.keyOf(request);
    if (key == null) {
      return CompletableFuture.completedFuture(Admission.unlimited());
    }
    Check check;
    try {
      check = check(key, request);
    } catch (InvalidPolicyException e) {
      return CompletableFuture.completedFuture(Admission.invalid(e));
    }
    return limiter
        .tryAcquireAsync(check)
        .thenCompose(
            decision -> policyLater(decision).thenApply(policy -> admission(key, decision, policy)))
        .thenCompose(
            admission -> {
              long delay = delayOf(admission);
              if (delay <= 0) {
                return CompletableFuture.completedFuture(admission);
              }
              return CompletableFuture.supplyAsync(
                  () -> admission, CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS));
            });
  }

  /**
   * The check for {@code key}, costing what the gate's cost says of {@code request}.
   *
   * @throws InvalidPolicyException naming {@code key} if no runtime can hold it, or {@code cost} if
   *     the request's cost is below 1
   */
  private Check check(String key, GateRequest request) {
    long permits = cost.applyAsLong(request);
    if (permits < 1) {
      throw new InvalidPolicyException("cost", "must be at least 1, was " + permits);
    }
    Check check = new Check(ref, key, permits);
    return maxWait == null ? check : check.withMaxWait(maxWait);
  }

  /** What {@code decision} gets, with the headers of {@code policy} (null: not known here). */
  private Admission admission(String key, Decision decision, @Nullable Policy policy) {
    if (decision.shadowBanned()) {
      return Admission.passed(limiter, ref, key, decision, List.of());
    }
    List<Header> headers =
        policy != null && policy.shadowBans()
            ? List.of()
            : RateLimitHeaders.of(ref.label(), policy, decision);
    if (decision.allowed()) {
      return Admission.passed(limiter, ref, key, decision, headers);
    }
    String rule = ref instanceof PolicyRef.Named named ? named.rule() : null;
    if (decision.decidedBy() == Decision.DecidedBy.FAIL_CLOSED) {
      return Admission.answered(
          decision, unavailableStatus, headers, GateBodies.unavailable(rule, decision));
    }
    return Admission.answered(
        decision, rejectStatus, headers, GateBodies.rateLimited(rule, decision));
  }

  /** How long an admission waits before the handler: only when the gate waits. */
  private long delayOf(Admission admission) {
    Decision decision = admission.decision();
    return maxWait == null || decision == null || !admission.proceeds() || !decision.allowed()
        ? 0
        : decision.delayNanos();
  }

  /**
   * The policy to describe in the headers: an inline one, or the rule's as the limiter knows it.
   * None for a failure policy's answer (it must not wait for the rules, and states no count), nor
   * when the rules cannot be read (the headers then go without counts).
   */
  private @Nullable Policy policyNow(Decision decision) {
    if (!decision.decidedBy().reportsCounts()) {
      return null;
    }
    if (ref instanceof PolicyRef.Inline inline) {
      return inline.policy();
    }
    try {
      return limiter.rules().find(((PolicyRef.Named) ref).rule()).map(Rule::policy).orElse(null);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** {@link #policyNow}, read without blocking. */
  private CompletionStage<@Nullable Policy> policyLater(Decision decision) {
    if (!decision.decidedBy().reportsCounts()) {
      return CompletableFuture.completedFuture(null);
    }
    if (ref instanceof PolicyRef.Inline inline) {
      return CompletableFuture.completedFuture(inline.policy());
    }
    CompletableFuture<Optional<Rule>> found;
    try {
      found = limiter.rules().findAsync(((PolicyRef.Named) ref).rule());
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(null);
    }
    return found.handle(
        (rule, failure) -> rule == null ? null : rule.map(Rule::policy).orElse(null));
  }

  /**
   * Options of a {@link RateLimitGate}: a rule or an inline policy is required; the key is the
   * client IP, the cost 1.
   */
  public static final class Builder {
    private final RateLimiter limiter;
    private @Nullable PolicyRef ref;
    private KeyExtractor key = KeyExtractor.clientIp();
    private ToLongFunction<GateRequest> cost = request -> 1;
    private @Nullable Duration maxWait;
    private int rejectStatus = 429;
    private int unavailableStatus = 503;

    private Builder(RateLimiter limiter) {
      this.limiter = limiter;
    }

    /** Limits by the named rule. */
    public Builder rule(String rule) {
      this.ref = PolicyRef.rule(Rule.checkName(rule, "rule"));
      return this;
    }

    /** Limits by an inline policy (its keys are its own, apart from every rule's). */
    public Builder policy(Policy policy) {
      this.ref = PolicyRef.inline(Objects.requireNonNull(policy, "policy"));
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
      this.cost = request -> cost;
      return this;
    }

    /**
     * Permits a request costs, as {@code cost} reads them off it (a body size, a header, a batch's
     * item count). A request whose cost is below 1 is answered 400 and nothing is counted, as is
     * one with a bad key.
     */
    public Builder cost(ToLongFunction<GateRequest> cost) {
      this.cost = Objects.requireNonNull(cost, "cost");
      return this;
    }

    /**
     * The status of a denial: 429 (Too Many Requests) by default; e.g. 413, as some limiters answer
     * a request too large for the budget, or 503.
     */
    public Builder rejectStatus(int status) {
      this.rejectStatus = checkStatus("rejectStatus", status);
      return this;
    }

    /**
     * The status of the failure policy's denial, when the grid cannot be reached and the rule fails
     * closed: 503 (Service Unavailable) by default, since the client did nothing wrong.
     */
    public Builder unavailableStatus(int status) {
      this.unavailableStatus = checkStatus("unavailableStatus", status);
      return this;
    }

    private static int checkStatus(String name, int status) {
      if (status < 400 || status > 599) {
        throw new IllegalArgumentException(
            name + ": must be an error status, 400 to 599, was " + status);
      }
      return status;
    }

    public RateLimitGate build() {
      return new RateLimitGate(this);
    }
  }
}
