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
 * <h2>Paced grants</h2>
 *
 * On a key with no room for a grant to the end of the window, home grants a paced lease instead
 * (docs/algorithms.md, "Paced leases"): the next permits that free up, the {@code j}-th usable from
 * the instant home alone would first have admitted it, counted at home now, the lease lasting to
 * the end of the window, and at most half of what frees up before then, so that the other region
 * asking next finds the rest ({@code LeaseAsk.REGION_BUDGET}). Here the {@code j}-th becomes usable
 * at {@code arrived + (instant - decided)}, counted from when home's answer arrived (after home
 * decided), so never before it would be at home; the grant still ends at {@code sent + (end -
 * decided)}. A check that only paced permits not yet usable could answer is denied here until they
 * are ({@link #usableInNanos}): home counted them for this region, so home asked instead would deny
 * it too. The round trip shifts every instant later by the time the answer travelled and ends the
 * grant earlier by the time the ask travelled: only permits whose instants fall in the window's
 * last round trip are lost (given back at once, {@link #deposit}). Worked example, 100 per second
 * on a sliding window of 1 s, the key at its limit so one permit frees every 10 ms, a 50 ms round
 * trip, home deciding 400 ms into the window: 60 permits free up before it ends, the region is
 * granted 30, usable here from 425 ms to 715 ms on home's count, and the grant ends here at 975 ms:
 * none is lost. A grant made later in the window loses at most the 5 permits of the last 50 ms.
 *
 * <pre>
 * home:   decided 400 ms ─ permits at 400 410 ... 690 ─────────────── window ends 1000 ms
 * region: sent 375 ms, arrived 425 ms ─ usable at 425 435 ... 715 ─ ends 975 ms
 * </pre>
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
  private static final long FORMAT = 2;

  private static final int HEADER = 13;
  private static final int GRANT = 7;

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
   * @param usableFromNanos for a paced grant, when its next permit becomes usable here, on the
   *     holder's clock (ignored when {@code spacingNanos} is 0)
   * @param spacingNanos for a paced grant, the time between two of its permits becoming usable; 0
   *     for a grant whose permits are all usable at once
   */
  public record Grant(
      long permits,
      long endsAtNanos,
      long grantedAtHomeNanos,
      long leaseNanos,
      int shape,
      long usableFromNanos,
      long spacingNanos) {

    /** A grant whose permits are all usable at once. */
    public Grant(
        long permits, long endsAtNanos, long grantedAtHomeNanos, long leaseNanos, int shape) {
      this(permits, endsAtNanos, grantedAtHomeNanos, leaseNanos, shape, 0, 0);
    }

    boolean paced() {
      return spacingNanos > 0;
    }

    /** When its {@code n}-th next permit (from 1) becomes usable here; for a paced grant only. */
    long usableAtNanos(long n) {
      return usableFromNanos + (n - 1) * spacingNanos;
    }

    /** The permits usable before its end: all, unless it is paced. */
    long live() {
      if (!paced()) {
        return permits;
      }
      long span = endsAtNanos - usableFromNanos;
      return span <= 0 ? 0 : Math.min(permits, (span - 1) / spacingNanos + 1);
    }

    /** The permits usable at {@code nowNanos} (before its end, which the caller checked). */
    long usableAt(long nowNanos) {
      if (!paced()) {
        return permits;
      }
      long since = nowNanos - usableFromNanos;
      return since < 0 ? 0 : Math.min(live(), since / spacingNanos + 1);
    }

    /** This grant with {@code permits} instead (the same instants, end and lease). */
    Grant withPermits(long permits) {
      return new Grant(
          permits,
          endsAtNanos,
          grantedAtHomeNanos,
          leaseNanos,
          shape,
          usableFromNanos,
          spacingNanos);
    }

    /** This grant less {@code used} permits, taken in the order they became usable. */
    Grant less(long used) {
      return new Grant(
          permits - used,
          endsAtNanos,
          grantedAtHomeNanos,
          leaseNanos,
          shape,
          paced() ? usableFromNanos + used * spacingNanos : 0,
          spacingNanos);
    }
  }

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

  /**
   * Whether home's last grant was paced: the key is at its limit on an algorithm whose permits free
   * up continuously, so a refill during home's denial gets the next paced permits, not nothing.
   */
  private boolean homePaces;

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
              values[at],
              values[at + 1],
              values[at + 2],
              values[at + 3],
              (int) values[at + 4],
              values[at + 5],
              values[at + 6]));
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
    budget.homePaces = values[12] == 1;
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
    values[12] = homePaces ? 1 : 0;
    for (int i = 0; i < grants.size(); i++) {
      Grant grant = grants.get(i);
      int at = HEADER + i * GRANT;
      values[at] = grant.permits();
      values[at + 1] = grant.endsAtNanos();
      values[at + 2] = grant.grantedAtHomeNanos();
      values[at + 3] = grant.leaseNanos();
      values[at + 4] = grant.shape();
      values[at + 5] = grant.usableFromNanos();
      values[at + 6] = grant.spacingNanos();
    }
    return values;
  }

  /**
   * Drops what this holder cannot answer from at {@code nowNanos}, and says what to give back to
   * home: every grant of another holder (it moved here), unused; grants of another shape than
   * {@code shape} are dropped and not given back; ended grants are dropped (a grant to the end of
   * the window: its window has passed at home too, so a return would free nothing; a short or paced
   * one: its permits stay counted at home until their window ends, stricter).
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
   * end soonest (all or nothing), of the permits usable at {@code nowNanos} (a paced grant's not
   * yet usable ones are not), never from one that has ended by {@code nowNanos} (those are dropped
   * first, whether or not the caller pruned).
   *
   * @return whether the budget answered the request; if not, it is unchanged but for the demand and
   *     the ended grants it dropped
   */
  public boolean take(long permits, long nowNanos) {
    observe(permits, nowNanos);
    dropEnded(nowNanos);
    long usable = 0;
    for (Grant grant : grants) {
      usable += grant.usableAt(nowNanos);
    }
    if (permits > usable) {
      return false;
    }
    grants.sort((a, b) -> Long.compare(a.endsAtNanos(), b.endsAtNanos()));
    long left = permits;
    for (int i = 0; i < grants.size() && left > 0; i++) {
      Grant grant = grants.get(i);
      long used = Math.min(left, grant.usableAt(nowNanos));
      grants.set(i, grant.less(used));
      left -= used;
    }
    grants.removeIf(grant -> grant.live() <= 0);
    lastAnswerAtNanos = nowNanos;
    return true;
  }

  /**
   * After a {@link #take} of {@code permits} at {@code nowNanos} that the budget could not answer:
   * how long until paced permits it holds would answer it; 0 if they never will (too few are usable
   * before their grants end), and home is to be asked. The wait is until enough permits are usable,
   * each grant counted to its end, so waiting it out finds them usable unless a grant ends in
   * between.
   */
  public long usableInNanos(long permits, long nowNanos) {
    long usableNow = 0;
    long live = 0;
    for (Grant grant : grants) {
      usableNow += grant.usableAt(nowNanos);
      live += grant.live();
    }
    if (live < permits || usableNow >= permits) {
      return 0;
    }
    long missing = permits - usableNow;
    // The instants at which the next permits of the paced grants become usable, soonest first.
    List<Long> instants = new ArrayList<>();
    for (Grant grant : grants) {
      long now = grant.usableAt(nowNanos);
      for (long n = now + 1; n <= Math.min(grant.live(), now + missing); n++) {
        instants.add(grant.usableAtNanos(n));
      }
    }
    instants.sort(null);
    return Math.max(1, instants.get((int) missing - 1) - nowNanos);
  }

  /** The permits held that are usable before their grants end, over every grant. */
  public long held() {
    long held = 0;
    for (Grant grant : grants) {
      held += grant.live();
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
   * refill in flight, if any, has landed. Of a paced grant it keeps the permits usable before its
   * end here, and gives the others back to home at once (the exact undo of their part of the
   * lease), where they are free to be paced again, to either region: held, they would only be
   * dropped at the grant's end.
   *
   * @return what to give back to home now; nothing is held from a grant that had ended already
   */
  public List<Grant> deposit(Grant grant, long nowNanos) {
    refillAskedAtNanos = 0;
    if (grant.live() <= 0 || nowNanos - grant.endsAtNanos() >= 0) {
      return List.of();
    }
    homePaces = grant.paced();
    if (!homePaces) {
      forgetDenial(); // home granted permits at once: it has room again (a paced grant: it has not)
    }
    long unusable = grant.permits() - grant.live();
    grants.add(grant.withPermits(grant.live()));
    lastAnswerAtNanos = Math.max(lastAnswerAtNanos, nowNanos);
    return unusable > 0 ? List.of(grant.withPermits(unusable)) : List.of();
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
   * #lowWater} at the observed rate, no refill is in flight, and home's last denial does not hold
   * (unless home paces the key: then a refill brings the next paced permits). Marks one as in
   * flight if so.
   */
  public boolean askRefill(long nowNanos, long roundTripNanos) {
    if (ratePerSecond() == 0) {
      return false;
    }
    if (refillAskedAtNanos != 0 && nowNanos - refillAskedAtNanos < REFILL_TIMEOUT_NANOS) {
      return false;
    }
    if (deniedUntilNanos != 0 && nowNanos - deniedUntilNanos < 0 && !homePaces) {
      return false; // home denied the key: a refill would get nothing until then
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

  /**
   * Drops the grants that have ended by {@code nowNanos} (their window has passed at home), and
   * paced ones whose permits left become usable only at or after their end (they stay counted at
   * home: stricter).
   */
  public void dropEnded(long nowNanos) {
    grants.removeIf(grant -> nowNanos - grant.endsAtNanos() >= 0 || grant.live() <= 0);
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
