package dev.sluice.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a rule (or an inline check) enforces: one or several {@link Limit}s, and how denials are
 * treated. A request is admitted only if <em>every</em> limit admits it, atomically in the key's
 * one state; when one denies, none counts it (Bucket4j's several bandwidths, Stripe's per-second
 * plus per-day).
 *
 * <pre>{@code
 * Policy.of(5, Duration.ofMinutes(1));                                  // one limit
 * Policy.builder().algorithm(Algorithm.GCRA).limit(100).window(Duration.ofSeconds(1)).burst(20).build();
 * Policy.builder().limit(10).window(Duration.ofSeconds(1))             // 10/s and 1,000/h
 *     .and(Limit.of(1_000, Duration.ofHours(1))).build();
 * }</pre>
 *
 * @param limits one to {@value #MAX_LIMITS} limits, no two the same
 * @param shadow decide and count, but never deny: would-be denials are only reported
 * @param countDenied denied requests consume too (Figma-style penalty): a client that keeps
 *     hammering stays limited. With several limits a denied request counts in every one.
 * @param leases whether the owner may lease permits of a hot key to the callers that ask for them
 *     ({@link Leases#AUTO}, the default), or decides every request itself ({@link Leases#OFF});
 *     always {@link Leases#OFF} for a concurrency policy, whose permits each have their own id
 * @param onDenied what a denial does at an HTTP gate: answer it ({@link OnDenied#REJECT}, the
 *     default) or let the request through marked ({@link OnDenied#SHADOW_BAN}, Figma's shadow ban);
 *     the limit holds either way, and a denial is a denial to every other caller
 * @param release what a release must show to give permits back: proof of the admission ({@link
 *     Release#PROOF}, the default), or nothing, for a rule that trusts every caller with a bare
 *     count ({@link Release#OPEN}; never an inline policy)
 * @param scope where the rule is counted: here ({@link Scope#LOCAL}, the default), or at the home
 *     grid for every region ({@link Scope#atHome}; never an inline policy)
 */
public record Policy(
    List<Limit> limits,
    boolean shadow,
    boolean countDenied,
    Leases leases,
    OnDenied onDenied,
    Release release,
    Scope scope) {

  /**
   * Whether permits of a key may be leased to a caller that answers its own requests from them for
   * a moment (docs/client.md, "Leases"). A lease never admits more than the owner alone would; it
   * can only make answers stricter, by the permits parked in one holder for its short lifetime.
   */
  public enum Leases {
    /** Leased where it pays: to a holder that asks for a hot key, never near the limit. */
    AUTO,
    /** Every request is decided by the key's owner. */
    OFF;

    /** The name used in rules files and JSON: {@code auto} or {@code off}. */
    public String wireName() {
      return WireEnums.wireName(this);
    }

    /**
     * The value with this wire name.
     *
     * @throws InvalidPolicyException naming the field {@code leases}
     */
    public static Leases fromWireName(String name) {
      return WireEnums.fromWireName(values(), name, "leases");
    }
  }

  /**
   * What a denial does at an HTTP gate. The limiter decides and counts the same either way; this
   * says how the answer reaches the client.
   */
  public enum OnDenied {
    /** The gate answers the denial (429 and the rate-limit headers by default). */
    REJECT,
    /**
     * Figma's shadow ban ("stopping spam without telling the spammer"): the gate lets the request
     * through, marked, and the caller sees a normal success while the handler skips the side
     * effect, so a spammer does not learn that they were limited. Every decision says so ({@link
     * Decision#shadowBanned()}); the REST API still answers 429, so that a service that reads only
     * the status does not perform the side effect either.
     */
    SHADOW_BAN;

    /** The name used in rules files and JSON: {@code reject} or {@code shadow_ban}. */
    public String wireName() {
      return WireEnums.wireName(this);
    }

    /**
     * The value with this wire name.
     *
     * @throws InvalidPolicyException naming the field {@code onDenied}
     */
    public static OnDenied fromWireName(String name) {
      return WireEnums.fromWireName(values(), name, "onDenied");
    }
  }

  /**
   * What a release must show to give permits back (docs/rest-api.md, "Giving permits back"). A
   * release that frees on anyone's word lets any caller refund its own usage after every request
   * and never be limited, so by default it needs proof that the permits were admitted: the {@link
   * Receipt} the admitting decision carried, a permit id or a reservation id.
   */
  public enum Release {
    /** Proof of the admission: a receipt, a permit id or a reservation id. */
    PROOF,
    /**
     * Also a bare count of permits from anyone: for a rule whose every caller is trusted (a rule
     * counting work that the callers themselves report), as releases were before receipts.
     */
    OPEN;

    /** The name used in rules files and JSON: {@code proof} or {@code open}. */
    public String wireName() {
      return WireEnums.wireName(this);
    }

    /**
     * The value with this wire name.
     *
     * @throws InvalidPolicyException naming the field {@code release}
     */
    public static Release fromWireName(String name) {
      return WireEnums.fromWireName(values(), name, "release");
    }
  }

  /** The most limits one policy may hold. */
  public static final int MAX_LIMITS = 8;

  public Policy {
    if (leases == null) {
      throw new InvalidPolicyException("leases", "is required");
    }
    if (onDenied == null) {
      throw new InvalidPolicyException("onDenied", "is required");
    }
    if (shadow && onDenied == OnDenied.SHADOW_BAN) {
      throw new InvalidPolicyException(
          "onDenied",
          "shadow_ban acts on denials, and a shadow rule never denies; use one or the other");
    }
    if (release == null) {
      throw new InvalidPolicyException("release", "is required");
    }
    if (scope == null) {
      throw new InvalidPolicyException("scope", "is required");
    }
    if (limits == null || limits.isEmpty()) {
      throw new InvalidPolicyException("limits", "at least one limit is required");
    }
    if (limits.size() > MAX_LIMITS) {
      throw new InvalidPolicyException(
          "limits", "at most " + MAX_LIMITS + " limits per policy, was " + limits.size());
    }
    limits = List.copyOf(limits);
    for (int i = 0; i < limits.size(); i++) {
      if (limits.get(i).algorithm().inFlight() && limits.size() > 1) {
        throw new InvalidPolicyException(
            "limits[" + i + "].algorithm",
            "concurrency limits permits in flight and must be the policy's only limit");
      }
    }
    if (countDenied && limits.get(0).algorithm().inFlight()) {
      throw new InvalidPolicyException(
          "countDenied", "concurrency holds no penalty: a denied acquire holds no permit");
    }
    if (limits.get(0).algorithm().inFlight()) {
      // Decided here once, so that every reader of the rule (REST, the rules file, the client)
      // sees it: a concurrency permit is an entry at the owner with its own id, never leased.
      leases = Leases.OFF;
    }
    for (int i = 0; i < limits.size(); i++) {
      for (int j = 0; j < i; j++) {
        if (limits.get(i).equals(limits.get(j))) {
          throw new InvalidPolicyException(
              "limits[" + i + "]", "repeats limits[" + j + "] (" + limits.get(j).describe() + ")");
        }
      }
    }
    if (scope.global()) {
      checkGlobal(limits, shadow, countDenied, leases);
    }
  }

  /**
   * A global rule's budget is a lease to the end of its window at the home owner, which only the
   * window algorithms grant, one limit at a time (docs/algorithms.md, "Leases to the end of the
   * window"); a shadow rule is never leased, and a region's denials never reach home to be counted.
   */
  private static void checkGlobal(
      List<Limit> limits, boolean shadow, boolean countDenied, Leases leases) {
    if (limits.size() != 1) {
      throw new InvalidPolicyException(
          "scope", "a global rule has one limit (it has " + limits.size() + ")");
    }
    Algorithm algorithm = limits.get(0).algorithm();
    if (algorithm != Algorithm.FIXED_WINDOW
        && algorithm != Algorithm.SLIDING_WINDOW
        && algorithm != Algorithm.SLIDING_BUCKETS) {
      throw new InvalidPolicyException(
          "scope",
          "a global rule is counted by fixed_window, sliding_window or sliding_buckets (regions"
              + " hold budget to the end of a window), was "
              + algorithm.wireName());
    }
    if (shadow || countDenied || leases == Leases.OFF) {
      throw new InvalidPolicyException(
          "scope",
          "a global rule is leased to regions: it cannot be a shadow rule, count denials or set"
              + " leases: off");
    }
  }

  /** A policy counted where it is decided ({@link Scope#LOCAL}). */
  public Policy(
      List<Limit> limits,
      boolean shadow,
      boolean countDenied,
      Leases leases,
      OnDenied onDenied,
      Release release) {
    this(limits, shadow, countDenied, leases, onDenied, release, Scope.LOCAL);
  }

  /** A policy of these limits and flags whose denials are rejected and releases need proof. */
  public Policy(List<Limit> limits, boolean shadow, boolean countDenied, Leases leases) {
    this(limits, shadow, countDenied, leases, OnDenied.REJECT, Release.PROOF);
  }

  /** A policy of these limits and flags that may lease. */
  public Policy(List<Limit> limits, boolean shadow, boolean countDenied) {
    this(limits, shadow, countDenied, Leases.AUTO);
  }

  /** A policy of one limit, enforced and not penalising denials. */
  public Policy(Limit limit) {
    this(List.of(limit), false, false);
  }

  /** A policy with the defaults: one sliding_window limit of {@code limit} per {@code window}. */
  public static Policy of(long limit, Duration window) {
    return new Policy(Limit.of(limit, window));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Whether a denial under this policy is a shadow ban ({@link OnDenied#SHADOW_BAN}). */
  public boolean shadowBans() {
    return onDenied == OnDenied.SHADOW_BAN;
  }

  /** Whether this policy has exactly one limit, which {@link #only()} returns. */
  public boolean isSingle() {
    return limits.size() == 1;
  }

  /**
   * The policy's one limit.
   *
   * @throws IllegalStateException if it has several: code that handles any policy reads {@link
   *     #limits()}
   */
  public Limit only() {
    if (limits.size() != 1) {
      throw new IllegalStateException(
          "this policy has " + limits.size() + " limits; read limits() instead");
    }
    return limits.get(0);
  }

  /** The algorithm of the policy's one limit (see {@link #only()}). */
  public Algorithm algorithm() {
    return only().algorithm();
  }

  /** The count of the policy's one limit (see {@link #only()}). */
  public long limit() {
    return only().limit();
  }

  /** The window of the policy's one limit (see {@link #only()}). */
  public Duration window() {
    return only().window();
  }

  /**
   * The most permits one request may ask for: the smallest {@link Limit#capacity()} of the limits,
   * since a request is admitted only if every limit admits it.
   */
  public long capacity() {
    long smallest = Long.MAX_VALUE;
    for (Limit limit : limits) {
      smallest = Math.min(smallest, limit.capacity());
    }
    return smallest;
  }

  /** Whether this policy limits permits in flight (its one limit is {@code concurrency}). */
  public boolean inFlight() {
    return limits.get(0).algorithm().inFlight();
  }

  /** The window of the policy's one limit, in nanoseconds (see {@link #only()}). */
  public long windowNanos() {
    return only().windowNanos();
  }

  /** The burst of the policy's one limit (see {@link #only()}). */
  public long burst() {
    return only().burst();
  }

  /** The bucket count of the policy's one limit (see {@link #only()}). */
  public int buckets() {
    return only().buckets();
  }

  /** The same policy with every limit's count replaced: for one-limit policies, tuning tests. */
  public Policy withLimit(long newLimit) {
    return new Policy(
        List.of(only().withLimit(newLimit)), shadow, countDenied, leases, onDenied, release, scope);
  }

  /** The same policy counted where {@code newScope} says. */
  public Policy withScope(Scope newScope) {
    return new Policy(limits, shadow, countDenied, leases, onDenied, release, newScope);
  }

  /** Whether this policy is counted at the home grid ({@link Scope#atHome}). */
  public boolean global() {
    return scope.global();
  }

  /** The same limits as a shadow policy or not. */
  public Policy withShadow(boolean newShadow) {
    return new Policy(limits, newShadow, countDenied, leases, onDenied, release, scope);
  }

  /**
   * The longest lease the owner grants on a key of this policy: a tenth of its shortest window, at
   * most 100 ms (docs/client.md, "Leases"). Short, because permits parked in a holder are
   * unavailable to others until they are used or returned.
   */
  public long maxLeaseNanos() {
    long shortest = Long.MAX_VALUE;
    for (Limit limit : limits) {
      shortest = Math.min(shortest, limit.windowNanos());
    }
    return Math.min(MAX_LEASE_NANOS, shortest / 10);
  }

  /** The longest lease of any policy: 100 ms. */
  public static final long MAX_LEASE_NANOS = 100_000_000L;

  /**
   * A short, stable name of this policy's content, the same in every JVM and version that writes
   * it: the part of an inline policy's state key that gives each policy on one key its own state
   * ({@link StateKey#inline}). A 64-bit FNV-1a hash of the canonical text, in base 36.
   */
  public String identity() {
    StringBuilder canonical = new StringBuilder("p1");
    for (Limit limit : limits) {
      canonical
          .append(';')
          .append(limit.algorithm().wireName())
          .append(',')
          .append(limit.limit())
          .append(',')
          .append(limit.windowNanos())
          .append(',')
          .append(limit.burst())
          .append(',')
          .append(limit.buckets());
    }
    // Not the lease setting, onDenied nor the release one: they change who answers, how, and who
    // may give back, not what is counted (and an inline policy never opens its releases).
    canonical.append(';').append(shadow ? 's' : '-').append(countDenied ? 'd' : '-');
    long hash = 0xcbf29ce484222325L;
    for (int i = 0; i < canonical.length(); i++) {
      hash ^= canonical.charAt(i);
      hash *= 0x100000001b3L;
    }
    return Long.toUnsignedString(hash, 36);
  }

  /**
   * Builds a {@link Policy}. The single-limit setters ({@link #algorithm}, {@link #limit}, {@link
   * #window}, {@link #burst}, {@link #buckets}) describe the first limit; {@link #and} adds more.
   */
  public static final class Builder {
    private final Limit.Builder first = Limit.builder();
    private boolean firstSet;
    private final List<Limit> more = new ArrayList<>();
    private boolean shadow;
    private boolean countDenied;
    private Leases leases = Leases.AUTO;
    private OnDenied onDenied = OnDenied.REJECT;
    private Release release = Release.PROOF;
    private Scope scope = Scope.LOCAL;

    private Builder() {}

    public Builder algorithm(Algorithm algorithm) {
      first.algorithm(algorithm);
      firstSet = true;
      return this;
    }

    public Builder limit(long limit) {
      first.limit(limit);
      firstSet = true;
      return this;
    }

    public Builder window(Duration window) {
      first.window(window);
      firstSet = true;
      return this;
    }

    public Builder burst(long burst) {
      first.burst(burst);
      firstSet = true;
      return this;
    }

    public Builder buckets(int buckets) {
      first.buckets(buckets);
      firstSet = true;
      return this;
    }

    /** One more limit, after the first (and any added before). */
    public Builder and(Limit limit) {
      more.add(limit);
      return this;
    }

    /** Limits to add, in order. */
    public Builder limits(List<Limit> limits) {
      more.addAll(limits);
      return this;
    }

    public Builder shadow(boolean shadow) {
      this.shadow = shadow;
      return this;
    }

    public Builder countDenied(boolean countDenied) {
      this.countDenied = countDenied;
      return this;
    }

    /** Whether the owner may lease permits of hot keys ({@link Leases#AUTO} by default). */
    public Builder leases(Leases leases) {
      this.leases = leases;
      return this;
    }

    /** What a denial does at an HTTP gate ({@link OnDenied#REJECT} by default). */
    public Builder onDenied(OnDenied onDenied) {
      this.onDenied = onDenied;
      return this;
    }

    /**
     * What a release must show ({@link Release#PROOF} by default); {@link Release#OPEN} takes a
     * bare count of permits from anyone.
     */
    public Builder release(Release release) {
      this.release = release;
      return this;
    }

    /**
     * Where the rule is counted ({@link Scope#LOCAL} by default); {@link Scope#atHome} counts it at
     * the home grid for every region.
     */
    public Builder scope(Scope scope) {
      this.scope = scope;
      return this;
    }

    /**
     * The policy, validated. The first limit comes from the single-limit setters, if any was called
     * (or if no limit was added at all, so that a missing limit or window is reported).
     */
    public Policy build() {
      List<Limit> all = new ArrayList<>();
      if (firstSet || more.isEmpty()) {
        all.add(first.build());
      }
      all.addAll(more);
      return new Policy(all, shadow, countDenied, leases, onDenied, release, scope);
    }
  }
}
