package dev.sluice.core.region;

import java.util.ArrayList;
import java.util.List;

/**
 * A region's budget for one key of a global rule: permits the key's owner at the home grid admitted
 * to this region in advance, held by the key's owner in the region, which answers the region's
 * requests from them without asking home.
 *
 * <h2>Why it is exact</h2>
 *
 * Each grant is a lease to the end of the window at the home owner (docs/algorithms.md, "Leases to
 * the end of the window"): the home owner counts its permits when it grants them, as it would count
 * that many requests, and a request answered from them before the window that counts them ends is
 * one the home owner would have admitted itself. Each permit here answers one request, once. So per
 * key and per window of the global rule, the admissions summed over all regions never exceed what
 * the home owner alone would admit: a region's budget only makes answers stricter, by the permits
 * parked in it until they are used or given back.
 *
 * <h2>Time</h2>
 *
 * A grant ends here at {@code sent + (end - decided)}: the grant's length on the home owner's
 * clock, counted from before the ask left, on the clock of the member that asked ({@code
 * System.nanoTime()} there). Only durations cross, so the clock offset between the clusters does
 * not matter, and a grant ends here before it ends at home. That reading is only meaningful on the
 * member that asked: the budget records that member ({@code holder}), and a budget that moved to
 * another member (a partition migrated, a backup was promoted) answers nothing from the grants it
 * carried; they go back to home (the undo is stamped with home's own instants, so any member may
 * send it).
 *
 * <h2>Shape</h2>
 *
 * A grant remembers the shape of the rule at home when it was granted ({@code shape}: the
 * fingerprint of window and algorithm). A rule that changes shape at home voids the grants of the
 * old shape as soon as the region learns of the change (docs/multi-region.md, "A rule change at
 * home"): they are dropped, never returned (a return under the new shape would free the wrong
 * permits).
 *
 * <h2>Home's denials</h2>
 *
 * A check the budget cannot answer goes home; when home denies {@code p} permits with {@code
 * retryAfter = d}, the budget remembers {@code (p, sentAt + d)}, {@code sentAt} on the holder's
 * clock just before the ask left, and answers a check of {@code q >= p} permits "denied" until then
 * without asking home ({@link #deniedFor}): a hot key past its limit costs one round trip per
 * retry-after instead of one per check. The rule and why it only makes answers stricter are the
 * client's denied-until cache's (docs/client.md): home decided after {@code sentAt}, so the marker
 * ends no later than home's denial; more traffic only keeps the key denied longer; a smaller check
 * may fit, so it goes home. What it may deny that home would admit: permits given back to home by
 * another region, or a rule raised at home, before the marker ends (at most {@code d}). A grant
 * from home (there is room again) and a move to another member (another clock) drop it; no refill
 * is asked while it holds.
 *
 * <h2>Asking ahead</h2>
 *
 * The budget observes the region's demand for the key (permits asked in the last second) and asks
 * for more when what is held would last less than {@link #lowWater}: the refill goes out in the
 * background, off the request's path, and at most one is in flight per key.
 *
 * <p>Not thread-safe: it is read from and written back to the key's entry in one atomic step.
 */
public final class RegionBudget {
  /**
   * The stored format; part of the regional map's values. A budget in any other format is read as
   * empty: it holds less, which is only stricter (home still counts what it granted). Compatibility
   * between builds starts at the first release.
   */
  private static final long FORMAT = 1;

  private static final int HEADER = 12;
  private static final int GRANT = 5;

  /** How long a refill may be in flight before another may be asked for. */
  public static final long REFILL_TIMEOUT_NANOS = 2_000_000_000L;

  /** A held budget that answered nothing for this long goes back to home (as a lease does). */
  public static final long IDLE_NANOS = 1_000_000_000L;

  private static final long SECOND_NANOS = 1_000_000_000L;

  /**
   * One grant from home.
   *
   * @param permits permits left to answer with
   * @param endsAtNanos when it ends here, on the holder's clock
   * @param grantedAtHomeNanos when the home owner granted it, on home's clock (for its return)
   * @param leaseNanos its lifetime as home granted it (for its return)
   * @param shape the fingerprint of the rule's shape at home when granted
   */
  public record Grant(
      long permits, long endsAtNanos, long grantedAtHomeNanos, long leaseNanos, int shape) {}

  private long holderMost;
  private long holderLeast;
  private long lastAnswerAtNanos;
  private long refillAskedAtNanos;
  private long rateStartNanos;
  private long rateCount;
  private long ratePerSecond;
  private long deniedPermits;
  private long deniedUntilNanos;
  private long deniedResetUntilNanos;
  private final List<Grant> grants;

  private RegionBudget(List<Grant> grants) {
    this.grants = grants;
  }

  /** A budget that holds nothing yet. */
  public static RegionBudget empty() {
    return new RegionBudget(new ArrayList<>());
  }

  /** The budget stored as {@code values}; an empty one for null. */
  public static RegionBudget of(long[] values) {
    if (values == null || values.length < HEADER || values[0] != FORMAT) {
      return empty();
    }
    int count = (int) values[8];
    List<Grant> grants = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int at = HEADER + i * GRANT;
      grants.add(
          new Grant(
              values[at], values[at + 1], values[at + 2], values[at + 3], (int) values[at + 4]));
    }
    RegionBudget budget = new RegionBudget(grants);
    budget.holderMost = values[1];
    budget.holderLeast = values[2];
    budget.lastAnswerAtNanos = values[3];
    budget.refillAskedAtNanos = values[4];
    budget.rateStartNanos = values[5];
    budget.rateCount = values[6];
    budget.ratePerSecond = values[7];
    budget.deniedPermits = values[9];
    budget.deniedUntilNanos = values[10];
    budget.deniedResetUntilNanos = values[11];
    return budget;
  }

  /** This budget as stored. */
  public long[] values() {
    long[] values = new long[HEADER + grants.size() * GRANT];
    values[0] = FORMAT;
    values[1] = holderMost;
    values[2] = holderLeast;
    values[3] = lastAnswerAtNanos;
    values[4] = refillAskedAtNanos;
    values[5] = rateStartNanos;
    values[6] = rateCount;
    values[7] = ratePerSecond;
    values[8] = grants.size();
    values[9] = deniedPermits;
    values[10] = deniedUntilNanos;
    values[11] = deniedResetUntilNanos;
    for (int i = 0; i < grants.size(); i++) {
      Grant grant = grants.get(i);
      int at = HEADER + i * GRANT;
      values[at] = grant.permits();
      values[at + 1] = grant.endsAtNanos();
      values[at + 2] = grant.grantedAtHomeNanos();
      values[at + 3] = grant.leaseNanos();
      values[at + 4] = grant.shape();
    }
    return values;
  }

  /**
   * Drops what this holder cannot answer from at {@code nowNanos}, and says what to give back to
   * home: every grant of another holder (it moved here), unused; grants of another shape than
   * {@code shape} are dropped and not given back; ended grants are dropped (their window has passed
   * at home too, so a return would free nothing).
   *
   * @return the grants to give back to home
   */
  public List<Grant> prune(long holderMost, long holderLeast, long nowNanos, int shape) {
    List<Grant> giveBack = new ArrayList<>(0);
    boolean foreign = holderMost != this.holderMost || holderLeast != this.holderLeast;
    for (int i = grants.size() - 1; i >= 0; i--) {
      Grant grant = grants.get(i);
      if (grant.shape() != shape || grant.permits() <= 0) {
        grants.remove(i);
      } else if (foreign) {
        grants.remove(i);
        giveBack.add(grant);
      } else if (nowNanos - grant.endsAtNanos() >= 0) {
        grants.remove(i);
      }
    }
    if (foreign) {
      this.holderMost = holderMost;
      this.holderLeast = holderLeast;
      this.refillAskedAtNanos = 0;
      forgetDenial(); // its end was read on another member's clock
    }
    return giveBack;
  }

  /**
   * Counts a request of {@code permits} in the region's demand, and takes them from the grants that
   * end soonest (all or nothing), never from one that has ended by {@code nowNanos} (those are
   * dropped first, whether or not the caller pruned).
   *
   * @return whether the budget answered the request; if not, it is unchanged but for the demand and
   *     the ended grants it dropped
   */
  public boolean take(long permits, long nowNanos) {
    observe(permits, nowNanos);
    dropEnded(nowNanos);
    if (permits > held()) {
      return false;
    }
    grants.sort((a, b) -> Long.compare(a.endsAtNanos(), b.endsAtNanos()));
    long left = permits;
    for (int i = 0; i < grants.size() && left > 0; i++) {
      Grant grant = grants.get(i);
      long used = Math.min(left, grant.permits());
      grants.set(
          i,
          new Grant(
              grant.permits() - used,
              grant.endsAtNanos(),
              grant.grantedAtHomeNanos(),
              grant.leaseNanos(),
              grant.shape()));
      left -= used;
    }
    grants.removeIf(grant -> grant.permits() <= 0);
    lastAnswerAtNanos = nowNanos;
    return true;
  }

  /** The permits held, over every live grant. */
  public long held() {
    long held = 0;
    for (Grant grant : grants) {
      held += grant.permits();
    }
    return held;
  }

  /** The grants held, soonest first once a request has been answered. */
  public List<Grant> grants() {
    return List.copyOf(grants);
  }

  /**
   * Adds a grant that the holder this budget was last {@link #prune}d for asked for (its end is on
   * that member's clock: the caller checks that the member that asked is the one storing it); the
   * refill in flight, if any, has landed.
   *
   * @return whether the grant was kept; if not (it had ended already), nothing is held from it
   */
  public boolean deposit(Grant grant, long nowNanos) {
    refillAskedAtNanos = 0;
    if (grant.permits() <= 0 || nowNanos - grant.endsAtNanos() >= 0) {
      return false;
    }
    forgetDenial(); // home granted permits: it has room again
    grants.add(grant);
    lastAnswerAtNanos = Math.max(lastAnswerAtNanos, nowNanos);
    return true;
  }

  /** A refill that failed: another may be asked for at once. */
  public void refillFailed() {
    refillAskedAtNanos = 0;
  }

  /**
   * Remembers home's denial of {@code permits}, asked at {@code sentAtNanos} on the holder's clock
   * (before the ask left), with home's retry-after and reset-after: checks of at least {@code
   * permits} are denied here until {@code sentAtNanos + retryAfterNanos}. A later denial replaces
   * an earlier one (it is home's newer word), unless it is for more permits while the earlier one
   * still holds (the earlier one covers more checks).
   */
  public void denied(long permits, long sentAtNanos, long retryAfterNanos, long resetAfterNanos) {
    if (permits <= 0 || retryAfterNanos <= 0) {
      return;
    }
    long until = sentAtNanos + retryAfterNanos;
    boolean earlierHolds = deniedUntilNanos != 0 && sentAtNanos - deniedUntilNanos < 0;
    if (earlierHolds && permits > deniedPermits) {
      return;
    }
    deniedPermits = permits;
    deniedUntilNanos = until == 0 ? 1 : until;
    deniedResetUntilNanos = sentAtNanos + Math.max(retryAfterNanos, resetAfterNanos);
  }

  /**
   * How much longer a check of {@code permits} is denied by home's last denial at {@code nowNanos}:
   * 0 if no denial holds for it (none, it ran out, or the check asks fewer permits than were denied
   * and may fit).
   */
  public long deniedFor(long permits, long nowNanos) {
    if (deniedUntilNanos == 0 || permits < deniedPermits) {
      return 0;
    }
    long left = deniedUntilNanos - nowNanos;
    if (left <= 0) {
      forgetDenial();
      return 0;
    }
    return left;
  }

  /** Until the key's window resets, as home said with its denial, from {@code nowNanos}. */
  public long deniedResetAfter(long nowNanos) {
    return Math.max(0, deniedResetUntilNanos - nowNanos);
  }

  private void forgetDenial() {
    deniedPermits = 0;
    deniedUntilNanos = 0;
    deniedResetUntilNanos = 0;
  }

  /**
   * Whether to ask home for more now, ahead of need: what is held would last less than {@link
   * #lowWater} at the observed rate, and no refill is in flight. Marks one as in flight if so.
   */
  public boolean askRefill(long nowNanos, long roundTripNanos) {
    if (ratePerSecond() == 0) {
      return false;
    }
    if (refillAskedAtNanos != 0 && nowNanos - refillAskedAtNanos < REFILL_TIMEOUT_NANOS) {
      return false;
    }
    if (deniedUntilNanos != 0 && nowNanos - deniedUntilNanos < 0) {
      return false; // home denied the key: a refill would be denied too until then
    }
    if (held() >= lowWater(roundTripNanos)) {
      return false;
    }
    refillAskedAtNanos = nowNanos == 0 ? 1 : nowNanos;
    return true;
  }

  /**
   * What a refill asks for: a second's worth of the observed demand, and at least twice the low
   * water mark; home grants at most a quarter of what the key has left.
   */
  public long refillAsk(long roundTripNanos) {
    return Math.max(Math.max(1, ratePerSecond()), 2 * lowWater(roundTripNanos));
  }

  /**
   * The budget below which a refill is asked for: what the region uses in two round trips to home
   * plus 100 ms, at the observed rate (at least 1 permit).
   */
  public long lowWater(long roundTripNanos) {
    double seconds = (2.0 * roundTripNanos + 100_000_000L) / SECOND_NANOS;
    return Math.max(1, (long) Math.ceil(ratePerSecond() * seconds));
  }

  /** The permits asked per second for this key in this region: the last full second's, or now's. */
  public long ratePerSecond() {
    return Math.max(ratePerSecond, rateCount);
  }

  /**
   * Whether the budget answered nothing for {@link #IDLE_NANOS} while holding permits: then its
   * grants go back to home ({@link #takeAll}).
   */
  public boolean idle(long nowNanos) {
    return !grants.isEmpty() && nowNanos - lastAnswerAtNanos >= IDLE_NANOS;
  }

  /** Whether this budget's grants were read on {@code holder}'s clock. */
  public boolean heldBy(long holderMost, long holderLeast) {
    return holderMost == this.holderMost && holderLeast == this.holderLeast;
  }

  /** Drops the grants that have ended by {@code nowNanos} (their window has passed at home). */
  public void dropEnded(long nowNanos) {
    grants.removeIf(grant -> nowNanos - grant.endsAtNanos() >= 0);
  }

  /**
   * Whether the budget may be forgotten: it holds nothing, has no refill in flight, and answered
   * nothing for {@link #IDLE_NANOS} (its demand is stale).
   */
  public boolean forgettable(long nowNanos) {
    return grants.isEmpty()
        && refillAskedAtNanos == 0
        && nowNanos - Math.max(lastAnswerAtNanos, rateStartNanos) >= IDLE_NANOS;
  }

  /** Takes every grant out, to give back. */
  public List<Grant> takeAll() {
    List<Grant> all = List.copyOf(grants);
    grants.clear();
    return all;
  }

  private void observe(long permits, long nowNanos) {
    if (rateStartNanos == 0 || nowNanos - rateStartNanos >= SECOND_NANOS) {
      // The second just ended is the rate; a gap of more than a second means a rate of 0 then.
      ratePerSecond =
          rateStartNanos != 0 && nowNanos - rateStartNanos < 2 * SECOND_NANOS ? rateCount : 0;
      rateStartNanos = nowNanos == 0 ? 1 : nowNanos;
      rateCount = 0;
    }
    rateCount += permits;
  }
}
