package dev.sluice.core;

import org.jspecify.annotations.Nullable;

/**
 * The answer to one request for permits (docs/algorithms.md).
 *
 * <p>Delays are in nanoseconds here; API surfaces round {@code retryAfter} <em>up</em> (whole
 * milliseconds in JSON, whole seconds in headers) so that a client that waits that long succeeds.
 *
 * @param allowed whether the permits were granted (always true for a shadow rule)
 * @param limit the most permits the key can hold; for gcra {@code burst + 1}, as redis-cell says
 * @param remaining permits left after this call, never negative
 * @param retryAfterNanos 0 when allowed; else the earliest delay after which the same request would
 *     be allowed if no other traffic arrived
 * @param resetAfterNanos delay until the key is back to full capacity if no other traffic arrived
 * @param delayNanos leaky_bucket only: how long an admitted caller waits before proceeding
 * @param shadowDenied the rule is a shadow rule and would have denied this request
 * @param decidedBy who decided: the limiter itself, or a client-side shortcut
 * @param permitId concurrency rules: the id of the permit an admitted request holds, to give to
 *     {@link RateLimiter#releasePermit}; 0 for every other decision
 * @param bindingLimitIndex which of the policy's {@link Policy#limits()} this answer's {@code
 *     limit} is (the binding one: see {@link dev.sluice.core.algorithm.LimitSet}); 0 for a policy
 *     of one limit. Surfaces name it in headers without guessing from quotas, which two limits may
 *     share.
 * @param shadowBanned denied under a policy that shadow-bans ({@link Policy.OnDenied#SHADOW_BAN}):
 *     {@code allowed} is false and nothing was admitted, but an HTTP gate lets the request through
 *     marked and its caller sees success
 * @param bindingResetAfterNanos delay until the binding limit ({@code bindingLimitIndex}) is back
 *     to full capacity if no other traffic arrived: what headers report as its reset. The same as
 *     {@code resetAfterNanos} for a policy of one limit; for several, {@code resetAfterNanos} waits
 *     for every limit (a day's quota) while this one is the limit that decided (the second's)
 * @param receipt an admission's proof, to give the permits back with ({@link
 *     RateLimiter#release(Receipt)}); null for every decision that took nothing (a denial, a peek,
 *     a shadow rule's would-be denial, a failure policy's answer)
 */
public record Decision(
    boolean allowed,
    long limit,
    long remaining,
    long retryAfterNanos,
    long resetAfterNanos,
    long delayNanos,
    boolean shadowDenied,
    DecidedBy decidedBy,
    long permitId,
    int bindingLimitIndex,
    boolean shadowBanned,
    long bindingResetAfterNanos,
    @Nullable Receipt receipt) {

  /**
   * Who made a decision. Everything but {@link #LIMITER} and {@link #LEASE} was decided without the
   * limiter; a lease's answers were counted by the limiter when it granted the lease.
   */
  public enum DecidedBy {
    /** The algorithm, on the state that owns the key. */
    LIMITER(0),
    /**
     * A denied-until cache: a recent denial has not expired yet. The client's, or, for a global
     * rule, the region's, which remembers home's last denial of the key (docs/multi-region.md).
     */
    DENIED_CACHE(1),
    /** The grid was unreachable and the rule fails open. */
    FAIL_OPEN(2),
    /** The grid was unreachable and the rule fails closed. */
    FAIL_CLOSED(3),
    /**
     * A lease this holder was granted: permits the key's owner admitted in advance and counted
     * then, handed out here without a network hop; or, from a paced lease, a denial until its next
     * permit becomes usable (docs/client.md, "Leases").
     */
    LEASE(4);

    private final int code;

    DecidedBy(int code) {
      this.code = code;
    }

    /**
     * Whether a decision by this maker reports the key's real limit and remaining: the limiter's
     * own, a lease's (counted by the limiter at the grant) and a cached denial's; not a failure
     * policy's, made without the grid.
     */
    public boolean reportsCounts() {
      return this != FAIL_OPEN && this != FAIL_CLOSED;
    }

    /** The code in binary formats; never renumbered (unlike an ordinal). */
    public int code() {
      return code;
    }

    /**
     * The value with this binary code.
     *
     * @throws IllegalArgumentException for a code none has
     */
    public static DecidedBy ofCode(int code) {
      return WireEnums.ofCode(values(), DecidedBy::code, code, "decidedBy");
    }
  }

  public Decision {
    if (remaining < 0) {
      throw new IllegalArgumentException("remaining must not be negative, was " + remaining);
    }
    if (bindingLimitIndex < 0) {
      throw new IllegalArgumentException(
          "bindingLimitIndex must not be negative, was " + bindingLimitIndex);
    }
  }

  /**
   * A decision about the first (or only) limit of its policy that holds no permit id (every
   * algorithm but concurrency) and carries no receipt (yet).
   */
  public Decision(
      boolean allowed,
      long limit,
      long remaining,
      long retryAfterNanos,
      long resetAfterNanos,
      long delayNanos,
      boolean shadowDenied,
      DecidedBy decidedBy) {
    this(
        allowed,
        limit,
        remaining,
        retryAfterNanos,
        resetAfterNanos,
        delayNanos,
        shadowDenied,
        decidedBy,
        0,
        0,
        false,
        resetAfterNanos,
        null);
  }

  public static Decision allow(long limit, long remaining, long resetAfterNanos) {
    return new Decision(true, limit, remaining, 0, resetAfterNanos, 0, false, DecidedBy.LIMITER);
  }

  public static Decision allowAfterDelay(
      long limit, long remaining, long resetAfterNanos, long delayNanos) {
    return new Decision(
        true, limit, remaining, 0, resetAfterNanos, delayNanos, false, DecidedBy.LIMITER);
  }

  public static Decision deny(
      long limit, long remaining, long retryAfterNanos, long resetAfterNanos) {
    return new Decision(
        false, limit, remaining, retryAfterNanos, resetAfterNanos, 0, false, DecidedBy.LIMITER);
  }

  /**
   * This decision as a shadow rule reports it: a denial becomes an allowance flagged {@code
   * shadowDenied}; the counts stay as the algorithm computed them.
   */
  public Decision asShadow() {
    if (allowed) {
      return this;
    }
    Copy copy = new Copy(this);
    copy.allowed = true;
    copy.retryAfterNanos = 0;
    copy.shadowDenied = true;
    copy.receipt = null;
    return copy.build();
  }

  /**
   * This decision under a policy that shadow-bans: a denial stays a denial (nothing admitted, the
   * same retry-after) and says {@code shadowBanned}, so that a gate lets it through marked.
   */
  public Decision asShadowBan() {
    if (allowed) {
      return this;
    }
    Copy copy = new Copy(this);
    copy.shadowBanned = true;
    copy.receipt = null;
    return copy.build();
  }

  public Decision decidedBy(DecidedBy by) {
    Copy copy = new Copy(this);
    copy.decidedBy = by;
    return copy.build();
  }

  /** This decision holding the permit {@code id} (a concurrency rule's admission). */
  public Decision withPermitId(long id) {
    Copy copy = new Copy(this);
    copy.permitId = id;
    return copy.build();
  }

  /** This admission carrying {@code proof} of itself (see {@link #receipt()}). */
  public Decision withReceipt(@Nullable Receipt proof) {
    Copy copy = new Copy(this);
    copy.receipt = proof;
    return copy.build();
  }

  /**
   * This decision reporting on the policy's limit at {@code index}, which is whole again after
   * {@code resetAfterNanos} (see {@link #bindingResetAfterNanos}).
   */
  public Decision withBindingLimit(int index, long resetAfterNanos) {
    Copy copy = new Copy(this);
    copy.bindingLimitIndex = index;
    copy.bindingResetAfterNanos = resetAfterNanos;
    return copy.build();
  }

  /**
   * This admission as a booking: the caller proceeds after {@code waitNanos} more (on top of any
   * delay of its own, a leaky bucket's), and the key is back to full capacity that much later.
   */
  public Decision afterWait(long waitNanos) {
    if (waitNanos <= 0) {
      return this;
    }
    Copy copy = new Copy(this);
    copy.resetAfterNanos = saturatedAdd(resetAfterNanos, waitNanos);
    copy.delayNanos = saturatedAdd(delayNanos, waitNanos);
    copy.bindingResetAfterNanos = saturatedAdd(bindingResetAfterNanos, waitNanos);
    return copy.build();
  }

  /** A decision's components, to change a few of before {@link #build}: the copies above. */
  private static final class Copy {
    private boolean allowed;
    private final long limit;
    private final long remaining;
    private long retryAfterNanos;
    private long resetAfterNanos;
    private long delayNanos;
    private boolean shadowDenied;
    private DecidedBy decidedBy;
    private long permitId;
    private int bindingLimitIndex;
    private boolean shadowBanned;
    private long bindingResetAfterNanos;
    private @Nullable Receipt receipt;

    Copy(Decision of) {
      allowed = of.allowed;
      limit = of.limit;
      remaining = of.remaining;
      retryAfterNanos = of.retryAfterNanos;
      resetAfterNanos = of.resetAfterNanos;
      delayNanos = of.delayNanos;
      shadowDenied = of.shadowDenied;
      decidedBy = of.decidedBy;
      permitId = of.permitId;
      bindingLimitIndex = of.bindingLimitIndex;
      shadowBanned = of.shadowBanned;
      bindingResetAfterNanos = of.bindingResetAfterNanos;
      receipt = of.receipt;
    }

    Decision build() {
      return new Decision(
          allowed,
          limit,
          remaining,
          retryAfterNanos,
          resetAfterNanos,
          delayNanos,
          shadowDenied,
          decidedBy,
          permitId,
          bindingLimitIndex,
          shadowBanned,
          bindingResetAfterNanos,
          receipt);
    }
  }

  /**
   * Decisions are equal when they decide the same: every component but the {@link #receipt()},
   * which names one admission (its number is unique to it), so that two admissions alike, a
   * synchronous and an asynchronous one say, compare equal as they did before receipts.
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof Decision other
        && allowed == other.allowed
        && limit == other.limit
        && remaining == other.remaining
        && retryAfterNanos == other.retryAfterNanos
        && resetAfterNanos == other.resetAfterNanos
        && delayNanos == other.delayNanos
        && shadowDenied == other.shadowDenied
        && decidedBy == other.decidedBy
        && permitId == other.permitId
        && bindingLimitIndex == other.bindingLimitIndex
        && shadowBanned == other.shadowBanned
        && bindingResetAfterNanos == other.bindingResetAfterNanos;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(
        allowed,
        limit,
        remaining,
        retryAfterNanos,
        resetAfterNanos,
        delayNanos,
        shadowDenied,
        decidedBy,
        permitId,
        bindingLimitIndex,
        shadowBanned,
        bindingResetAfterNanos);
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  /** {@code retryAfter} in whole milliseconds, rounded up so that waiting it out succeeds. */
  public long retryAfterMillis() {
    return ceilDiv(retryAfterNanos, 1_000_000L);
  }

  /** {@code resetAfter} in whole milliseconds, rounded up. */
  public long resetAfterMillis() {
    return ceilDiv(resetAfterNanos, 1_000_000L);
  }

  /** {@code delay} in whole milliseconds, rounded up so that waiting it out is enough. */
  public long delayMillis() {
    return ceilDiv(delayNanos, 1_000_000L);
  }

  /** {@code retryAfter} in whole seconds, rounded up: the {@code Retry-After} header. */
  public long retryAfterSeconds() {
    return ceilDiv(retryAfterNanos, 1_000_000_000L);
  }

  /** {@code resetAfter} in whole seconds, rounded up: the {@code X-RateLimit-Reset} header. */
  public long resetAfterSeconds() {
    return ceilDiv(resetAfterNanos, 1_000_000_000L);
  }

  /** {@code bindingResetAfter} in whole seconds, rounded up. */
  public long bindingResetAfterSeconds() {
    return ceilDiv(bindingResetAfterNanos, 1_000_000_000L);
  }

  private static long ceilDiv(long value, long divisor) {
    return -Math.floorDiv(-value, divisor);
  }
}
