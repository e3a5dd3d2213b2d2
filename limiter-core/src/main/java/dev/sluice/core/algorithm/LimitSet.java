package dev.sluice.core.algorithm;

import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import java.util.ArrayList;
import java.util.List;

/**
 * Several limits on one key, decided as one: a request is admitted only if every limit admits it,
 * and when one denies, none counts it. Bucket4j's several bandwidths; Stripe's per-second plus
 * per-day.
 *
 * <h2>The rule</h2>
 *
 * <pre>
 *   allow iff  for every limit i: allow_i(state_i, now, permits)
 *   then       every state_i counts the permits            (else none does)
 * </pre>
 *
 * Each limit decides on a copy of its own part of the state; the copies replace the parts only when
 * all admit (or when the policy counts denials: then every limit counts the denied request, as each
 * single algorithm would). So the key's one state, in one atomic step on one member, moves from
 * "none counted" to "all counted", never in between.
 *
 * <h2>Worked example: 10 per second and 15 per minute</h2>
 *
 * <pre>
 *   t=0.0s  ×10   allowed by both                 second: 10/10   minute: 10/15
 *   t=0.0s  #11   denied by the second limit      nothing counted (the minute stays 10/15)
 *   t=1.0s  ×5    allowed                         second: 5/10    minute: 15/15
 *   t=1.0s  #16   denied by the minute limit      retryAfter: when the minute admits again
 * </pre>
 *
 * <h2>What the answer reports</h2>
 *
 * The binding limit's {@code limit} and its place in the policy ({@link
 * Decision#bindingLimitIndex()}, so that headers name it even when two limits have the same count):
 * when admitted, the limit with the fewest permits left (on a tie, the longer wait until full);
 * when denied, the limit that denies for longest. {@code remaining} is the fewest permits any limit
 * has left, admitted or denied: a request for more is denied by that limit, so no other number is
 * honest (a denial used to report the longest denier's own count, which another limit could deny at
 * once: 5 per minute with 3 taken and 3 per second with 3 taken answered a request for 3 with
 * "remaining 2", and a request for 2 was denied). {@code retryAfter} is the longest wait of any
 * limit, since every limit's answer only improves with waiting, all of them admit once the slowest
 * does. {@code resetAfter} is the longest of all (full capacity on every limit), {@code
 * bindingResetAfter} the binding limit's own (what headers report: a day's quota must not say
 * "whole in 24 hours" when the second's limit decided), and {@code delay} (leaky_bucket) the
 * longest any limit asks for.
 *
 * <p>With {@code countDenied} a denied request is counted by every limit, including the ones that
 * admitted it, and their part of the wait is then the same request's on the state they now hold (a
 * limit that had room may be full after counting the penalty). Each limit is asked that without
 * counting it again, so the longest wait is still exact. (Before, a limit that had admitted
 * reported no wait: 3 per 34 minutes and 2 per 1 ms, the second denying, answered retryAfter 1 ms
 * though the first, now full, admitted nothing for minutes.)
 *
 * <h2>State</h2>
 *
 * {@code [n, length_1, state_1..., length_2, state_2..., ...]}: the number of limits, then each
 * limit's state prefixed by its length, in the policy's order. One state costs one small header per
 * limit beyond what its algorithms keep anyway.
 */
public final class LimitSet implements LimiterAlgorithm {
  private final LimiterAlgorithm[] parts;

  /** Each limit without {@code countDenied}: asks when a request fits without counting it. */
  private final LimiterAlgorithm[] plainParts;

  private final boolean countDenied;
  private final long capacity;

  LimitSet(List<Limit> limits, boolean countDenied) {
    if (limits.size() < 2) {
      throw new IllegalArgumentException("a limit set has at least two limits");
    }
    List<LimiterAlgorithm> parts = new ArrayList<>(limits.size());
    this.plainParts = new LimiterAlgorithm[limits.size()];
    for (int i = 0; i < limits.size(); i++) {
      parts.add(LimiterAlgorithm.of(limits.get(i), countDenied));
      plainParts[i] = LimiterAlgorithm.of(limits.get(i), false);
    }
    this.parts = parts.toArray(new LimiterAlgorithm[0]);
    this.countDenied = countDenied;
    long smallest = Long.MAX_VALUE;
    for (LimiterAlgorithm part : parts) {
      smallest = Math.min(smallest, part.capacity());
    }
    this.capacity = smallest;
  }

  @Override
  public long[] newState() {
    long[][] states = new long[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      states[i] = parts[i].newState();
    }
    return join(states);
  }

  /** Each part fitted by its own algorithm; a state of another shape starts afresh. */
  @Override
  public long[] fit(long[] state) {
    long[][] states = split(state);
    if (states == null) {
      return newState();
    }
    for (int i = 0; i < parts.length; i++) {
      states[i] = parts[i].fit(states[i]);
    }
    return join(states);
  }

  /** The latest of the limits' instants: the request must wait for every one of them. */
  @Override
  public long notBeforeNanos(long[] state) {
    long notBefore = Long.MIN_VALUE;
    for (int i = 0; i < parts.length; i++) {
      notBefore = Math.max(notBefore, parts[i].notBeforeNanos(part(state, i)));
    }
    return notBefore;
  }

  @Override
  public Decision apply(long[] state, long nowNanos, long permits) {
    checkPermits(permits);
    Decision[] decisions = new Decision[parts.length];
    if (permits == 0) {
      for (int i = 0; i < parts.length; i++) {
        decisions[i] = parts[i].apply(part(state, i), nowNanos, 0);
      }
      return combine(decisions);
    }
    long[][] tried = new long[parts.length][];
    boolean allowed = true;
    for (int i = 0; i < parts.length; i++) {
      tried[i] = part(state, i);
      decisions[i] = parts[i].apply(tried[i], nowNanos, permits);
      allowed &= decisions[i].allowed();
    }
    if (allowed || countDenied) {
      write(state, tried);
      if (!allowed) {
        // Penalised: the limits that admitted have counted the request too, so their wait is the
        // same request's on the state they now hold (asked without counting it again).
        for (int i = 0; i < parts.length; i++) {
          if (decisions[i].allowed()) {
            Decision again = plainParts[i].apply(tried[i].clone(), nowNanos, permits);
            decisions[i] =
                Decision.deny(
                    decisions[i].limit(),
                    decisions[i].remaining(),
                    again.retryAfterNanos(),
                    decisions[i].resetAfterNanos());
          }
        }
      }
    } else {
      // The limits that admitted reported the state as if they had counted; nothing was counted.
      for (int i = 0; i < parts.length; i++) {
        if (decisions[i].allowed()) {
          decisions[i] = parts[i].apply(part(state, i), nowNanos, 0);
          decisions[i] = notAllowed(decisions[i]);
        }
      }
    }
    return combine(decisions);
  }

  /** Each limit's booking at {@code atNanos}; kept only if every limit admits it. */
  @Override
  public Decision applyAt(long[] state, long nowNanos, long atNanos, long permits) {
    checkPermits(permits);
    if (atNanos <= nowNanos || permits == 0) {
      return apply(state, Math.max(nowNanos, atNanos), permits);
    }
    Decision[] decisions = new Decision[parts.length];
    long[][] tried = new long[parts.length][];
    boolean allowed = true;
    for (int i = 0; i < parts.length; i++) {
      tried[i] = part(state, i);
      decisions[i] = plainParts[i].applyAt(tried[i], nowNanos, atNanos, permits);
      allowed &= decisions[i].allowed();
    }
    if (!allowed) {
      for (int i = 0; i < parts.length; i++) {
        if (decisions[i].allowed()) {
          decisions[i] = notAllowed(plainParts[i].apply(part(state, i), atNanos, 0));
        }
      }
      return combine(decisions);
    }
    write(state, tried);
    return combine(decisions);
  }

  @Override
  public Decision release(long[] state, long nowNanos, long permits) {
    checkPermits(permits);
    long[][] released = new long[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      released[i] = part(state, i);
      parts[i].release(released[i], nowNanos, permits);
    }
    write(state, released);
    return apply(state, nowNanos, 0);
  }

  @Override
  public Decision release(long[] state, long nowNanos, long permits, long admittedAtNanos) {
    checkPermits(permits);
    long[][] released = new long[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      released[i] = part(state, i);
      parts[i].release(released[i], nowNanos, permits, admittedAtNanos);
    }
    write(state, released);
    return apply(state, nowNanos, 0);
  }

  /** Every limit charges the lease its own way; it ends with the first of them to end it. */
  @Override
  public long lease(long[] state, long nowNanos, long permits, long lifetimeNanos) {
    long[][] charged = new long[parts.length][];
    long expiresAt = NanoMath.saturatedAdd(nowNanos, lifetimeNanos);
    for (int i = 0; i < parts.length; i++) {
      charged[i] = part(state, i);
      expiresAt = Math.min(expiresAt, parts[i].lease(charged[i], nowNanos, permits, lifetimeNanos));
    }
    if (expiresAt <= nowNanos) {
      return nowNanos; // one limit does not lease (a leaky bucket): none is charged
    }
    write(state, charged);
    return expiresAt;
  }

  @Override
  public Decision returnLease(
      long[] state, long nowNanos, long permits, long grantedAtNanos, long lifetimeNanos) {
    checkPermits(permits);
    long[][] returned = new long[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      returned[i] = part(state, i);
      parts[i].returnLease(returned[i], nowNanos, permits, grantedAtNanos, lifetimeNanos);
    }
    write(state, returned);
    return apply(state, nowNanos, 0);
  }

  /** The smallest capacity of the limits: a request above it could never be admitted by all. */
  @Override
  public long capacity() {
    return capacity;
  }

  /** Fresh when every part is. */
  @Override
  public long untilFreshNanos(long[] state, long nowNanos) {
    long longest = 0;
    for (int i = 0; i < parts.length; i++) {
      longest = Math.max(longest, parts[i].untilFreshNanos(part(state, i), nowNanos));
    }
    return longest;
  }

  /** The envelope of the parts' admissions: they count the same requests. */
  @Override
  public Admissions admissions(long[] state, long nowNanos) {
    List<Admissions> each = new ArrayList<>(parts.length);
    for (int i = 0; i < parts.length; i++) {
      each.add(parts[i].admissions(part(state, i), nowNanos));
    }
    return Admissions.envelope(each);
  }

  @Override
  public long[] fromAdmissions(Admissions admissions, long nowNanos) {
    long[][] states = new long[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      states[i] = parts[i].fromAdmissions(admissions, nowNanos);
    }
    return join(states);
  }

  private void checkPermits(long permits) {
    if (permits < 0) {
      throw new InvalidPolicyException("cost", "must not be negative, was " + permits);
    }
    if (permits > capacity) {
      throw new InvalidPolicyException(
          "cost",
          permits
              + " exceeds the capacity "
              + capacity
              + " of the policy's smallest limit, so it could never be allowed");
    }
  }

  /** A denial's view of a limit that would have admitted: it did not count, so it reports so. */
  private static Decision notAllowed(Decision peek) {
    return Decision.deny(peek.limit(), peek.remaining(), 0, peek.resetAfterNanos());
  }

  /**
   * The binding limit's answer, with the fewest permits left and the longest waits of all (see the
   * class comment).
   */
  private static Decision combine(Decision[] decisions) {
    boolean allowed = true;
    long remaining = Long.MAX_VALUE;
    long retryAfter = 0;
    long resetAfter = 0;
    long delay = 0;
    for (Decision d : decisions) {
      allowed &= d.allowed();
      remaining = Math.min(remaining, d.remaining());
      retryAfter = Math.max(retryAfter, d.retryAfterNanos());
      resetAfter = Math.max(resetAfter, d.resetAfterNanos());
      delay = Math.max(delay, d.delayNanos());
    }
    int binding = 0;
    for (int i = 1; i < decisions.length; i++) {
      if (binds(decisions[i], decisions[binding], allowed)) {
        binding = i;
      }
    }
    long limit = decisions[binding].limit();
    Decision combined =
        allowed
            ? Decision.allowAfterDelay(limit, remaining, resetAfter, delay)
            : Decision.deny(limit, remaining, retryAfter, resetAfter);
    return combined.withBindingLimit(binding, decisions[binding].resetAfterNanos());
  }

  /** Whether {@code candidate} is the more binding of two limits' answers. */
  private static boolean binds(Decision candidate, Decision current, boolean allowed) {
    if (!allowed && candidate.retryAfterNanos() != current.retryAfterNanos()) {
      return candidate.retryAfterNanos() > current.retryAfterNanos();
    }
    if (candidate.remaining() != current.remaining()) {
      return candidate.remaining() < current.remaining();
    }
    return candidate.resetAfterNanos() > current.resetAfterNanos();
  }

  /** A copy of part {@code index} of {@code state}. */
  private long[] part(long[] state, int index) {
    int at = 1;
    for (int i = 0; i < index; i++) {
      at += 1 + (int) state[at];
    }
    int length = (int) state[at];
    long[] copy = new long[length];
    System.arraycopy(state, at + 1, copy, 0, length);
    return copy;
  }

  /** Writes {@code states} (of the lengths already in {@code state}) back in place. */
  private static void write(long[] state, long[][] states) {
    int at = 1;
    for (long[] part : states) {
      System.arraycopy(part, 0, state, at + 1, part.length);
      at += 1 + part.length;
    }
  }

  private static long[] join(long[][] states) {
    int length = 1;
    for (long[] part : states) {
      length += 1 + part.length;
    }
    long[] joined = new long[length];
    joined[0] = states.length;
    int at = 1;
    for (long[] part : states) {
      joined[at] = part.length;
      System.arraycopy(part, 0, joined, at + 1, part.length);
      at += 1 + part.length;
    }
    return joined;
  }

  /** The parts of a well-formed state of this many limits, or null. */
  private long[][] split(long[] state) {
    if (state.length < 1 || state[0] != parts.length) {
      return null;
    }
    long[][] states = new long[parts.length][];
    int at = 1;
    for (int i = 0; i < parts.length; i++) {
      if (at >= state.length || state[at] < 0 || state[at] > state.length - at - 1) {
        return null;
      }
      int length = (int) state[at];
      states[i] = new long[length];
      System.arraycopy(state, at + 1, states[i], 0, length);
      at += 1 + length;
    }
    return at == state.length ? states : null;
  }
}
