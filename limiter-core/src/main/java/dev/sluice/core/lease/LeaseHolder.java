package dev.sluice.core.lease;

import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.algorithm.PacedLease;
import dev.sluice.core.backend.AdmissionReceipts;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.LeaseAsk;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The holder's side of leases: permits a key's owner admitted in advance, answered here without a
 * network hop until they are spent or the lease ends, then given back.
 *
 * <h2>Why a lease is exact</h2>
 *
 * The owner counts a lease's permits when it grants them ({@link KeyDecision}, each algorithm's
 * {@code lease}), as it would count that many requests, and charges them so that a request answered
 * from them before the lease ends is one it would have admitted itself (docs/algorithms.md,
 * "Leases"). Each permit answers one request here, once. So, per key and per window, the permits
 * admitted to requests never exceed what the owner alone would admit: a lease can only make answers
 * stricter, by the permits parked here until they are used or given back.
 *
 * <h2>When a lease is asked for</h2>
 *
 * Only where it pays ({@link LeaseDemand}), for what the key used lately. For a key in a burst at
 * this holder, a short lease: the owner grants at most half of what is left (so the last permits
 * are decided at the owner) for at most a tenth of the shortest window and 100 ms. For a steady or
 * warm key, a few to a few dozen requests a second, a lease to the end of the window: at most a
 * quarter of what is left, and only by the window algorithms ({@link KeyDecision}); a warm key
 * whose owner cannot grant one gets a short lease instead, and the owner says which. For a hot key
 * with nothing to spare, a paced lease: the permits that free up within the short lifetime, each
 * usable here from the instant the owner would first have admitted it; requests before that instant
 * are denied here with the wait, as the owner would deny them ({@link PacedLease}).
 *
 * <h2>Renewing ahead</h2>
 *
 * On a key hot enough that a lease holds at least {@value #RENEW_AHEAD_MIN_PERMITS} permits, the
 * answer that takes the lease below a quarter of its permits also sends, in the background, an
 * acquire of no permits that asks for the next lease. Until it comes back the threads go on
 * answering from the quarter left; the next lease is then kept behind the current one and takes
 * over when the current one is spent or ends. Without it, a lease spent faster than a round trip (a
 * few thousand permits at millions of requests a second) sends every thread to the owner until the
 * next one arrives. Smaller leases (keys near their limit) are not renewed ahead: the next one is
 * asked for with a request, as the first was, so the last permits of a key stay at the owner.
 *
 * <h2>Time</h2>
 *
 * A lease ends here at {@code sent + (end - decided)}: the lease's length on the owner's clock,
 * counted from before the request went out on this holder's clock. Only durations cross, so clock
 * offsets between holder and owner do not matter, and the lease ends here before it ends at the
 * owner. A paced lease's permits become usable here at {@code arrived + (instant - decided)}, from
 * when the answer arrived: after the owner decided, so no permit is usable here before it is there.
 *
 * <h2>What a local answer says</h2>
 *
 * The owner's answer to the request that brought the lease reports the key as this holder sees it:
 * the remaining permits include the lease's. Each local answer then counts the lease down, so one
 * holder alone on a key reads the same {@code remaining} as if the owner had decided every request.
 *
 * <h2>Giving back</h2>
 *
 * A lease that ended with permits left, that a new lease of the same key replaced, or that is held
 * when the holder closes, is given back with {@link KeyOp#returnLease}: the exact undo of how the
 * owner charged it ({@link #takeReturns}). A lease to the end of the window is not given back once
 * it has ended, since the owner would free nothing then; it is given back early when it answered
 * nothing for {@link #IDLE_WINDOW_LEASE_NANOS}, so that a key gone quiet here does not park permits
 * until a long window ends. A closing holder asks for no more leases, lets the asks already on
 * their way land ({@link #asking}) before it gives everything back, and gives back at once a lease
 * that lands later still ({@link #close}). Thread-safe.
 */
public final class LeaseHolder {
  /** What {@link Lease#take} answers when the lease cannot answer: ask the owner. */
  private static final long SPENT = -1;

  /** What {@link Lease#take} answers when a paced lease's next permits are not usable yet. */
  private static final long NOT_YET = -2;

  /**
   * Every this many sweeps, one looks at every lease, not only the short ones (see {@link
   * #shortLeaseKeys}): with a sweep every 10 ms ({@link LeaseReturns#PERIOD_MILLIS}), every 100 ms.
   */
  static final int FULL_SWEEP_EVERY = 10;

  /** Leases of at least this many permits are renewed ahead of their end (see the class doc). */
  static final long RENEW_AHEAD_MIN_PERMITS = 64;

  /**
   * A lease to the end of its window that answers nothing for this long (a second) is given back
   * before its end (see {@link #takeReturns}).
   */
  static final long IDLE_WINDOW_LEASE_NANOS = 1_000_000_000L;

  private final LongSupplier nanoClock;

  /**
   * Where this holder's renewals and returns go, and where it reads the rules' state shapes: the
   * runtime's transport (its batching lanes over its storage), never the layers that answer in
   * front of it.
   */
  private final Backend transport;

  /** Gives a local answer its receipt; null where nobody gives answers back. */
  private final @Nullable AdmissionReceipts receipts;

  private volatile boolean closing;

  /** Set once the closing holder's last returns are taken: a lease landing later is late. */
  private volatile boolean lastReturnsTaken;

  private final ConcurrentHashMap<String, Lease> leases = new ConcurrentHashMap<>();

  /**
   * The keys whose lease, or the one waiting behind it, is short or paced: every sweep looks at
   * them, so such a lease goes back within a sweep of its end. Leases to the end of the window, of
   * which a holder may hold one for every key it asked in the current window of a rule with a
   * window of a second (up to {@link LeaseDemand#MAX_TRACKED_KEYS} of them), are looked at by every
   * {@value #FULL_SWEEP_EVERY}th sweep only: they go back only after a second idle, and once their
   * window has ended they are only taken out, so 100 ms later costs nothing.
   */
  private final Set<String> shortLeaseKeys = ConcurrentHashMap.newKeySet();

  /**
   * Sweeps ({@link #takeReturns}) so far, to look at every lease once per {@link
   * #FULL_SWEEP_EVERY}.
   */
  private final AtomicLong sweeps = new AtomicLong();

  private final LeasePolicy demand;
  private final ConcurrentLinkedQueue<Lease> replaced = new ConcurrentLinkedQueue<>();
  private final Statistics statistics = new Statistics();

  /**
   * @param nanoClock this holder's monotonic clock ({@code System::nanoTime}), running at the rate
   *     of the owners' clock (a test's manual clock where the grid decides on one)
   * @param policy which keys ask for leases here, and for how many permits
   * @param transport how renewals and returns reach the owners, and what tells the rules' state
   *     shapes as known here ({@link CompiledPolicy#fingerprint}, {@link Backend#rulesVersion})
   * @param receipts gives a local answer its receipt, as a limiter's must; null where nobody gives
   *     answers back (a holder's bookkeeping alone: its tests, a benchmark)
   */
  public LeaseHolder(
      LongSupplier nanoClock,
      LeasePolicy.Factory policy,
      Backend transport,
      @Nullable AdmissionReceipts receipts) {
    this.demand = policy.create(leases::containsKey);
    this.nanoClock = nanoClock;
    this.transport = transport;
    this.receipts = receipts;
  }

  /**
   * Asks for no more leases from now on; a lease that still lands is kept only to be given back.
   * The holder's owner then waits for {@link #asking} to turn false and gives every lease back with
   * {@link #giveBack}{@code (true)}; a lease landing after that is given back as it lands.
   */
  void close() {
    closing = true;
  }

  /**
   * Whether an ask for a lease (a request's or a renewal's) is on its way: one whose answer has
   * neither been kept nor failed, sent less than an interval ago (an answer lost to a timeout stops
   * counting then).
   */
  boolean asking() {
    return demand.asking(nanoClock.getAsLong());
  }

  /** This holder's clock, read just before a request that may bring a lease goes out. */
  long now() {
    return nanoClock.getAsLong();
  }

  /** A lease held on one key. */
  private static final class Lease {
    final PolicyRef ref;
    final String stateKey;
    final long grantedAtNanos;
    final long leaseNanos;
    final long endsAtHolderNanos;

    /**
     * A lease to the end of its window ({@link LeaseAsk#UNTIL_WINDOW_END}): once it has ended,
     * giving its unused permits back frees nothing at the owner (docs/algorithms.md, "Leases"), so
     * it is not sent. This holder's end comes first, so a return skipped between the two ends
     * leaves the key stricter, never laxer.
     */
    final boolean endsWithItsWindow;

    /** The policy's shape as known here when this lease to the end of its window was kept. */
    final int shape;

    /** {@link Backend#rulesVersion()} when {@link #shape} was last found current. */
    volatile long shapeSeenAt;

    /**
     * For a paced lease ({@link PacedLease}): when its first permit becomes usable here, and the
     * time between two permits; a spacing of 0 for a lease whose permits are all usable at once.
     */
    final long firstUsableAtNanos;

    final long spacingNanos;

    /** When a request was last answered from this lease to the end of its window. */
    volatile long lastAnsweredAtNanos;

    final long limit;

    /**
     * When the key is back to full capacity, on this holder's clock: the grant's {@code resetAfter}
     * counted from when the answer arrived. The lease's permits are already counted at the owner,
     * so for a holder alone on the key this instant only comes nearer as time passes, and counting
     * from the arrival (after the owner decided) says it no earlier than the owner would.
     */
    final long resetAtNanos;

    /** What the key had left for this holder at the grant: the owner's rest plus the lease. */
    final long remainingAtGrant;

    final long permits;
    final AtomicLong left;

    /** The lease granted ahead of this one's end, to answer once this one is spent or over. */
    volatile @Nullable Lease next;

    /** The key's heat, to count this lease's answers in; null if the key was not tracked. */
    final LeasePolicy.@Nullable Key heat;

    /**
     * The lease granted with result {@code index} of {@code outcome}, the answer to a request sent
     * at {@code sentAtNanos} that arrived at {@code arrivedAtNanos} (see "Time" above).
     */
    Lease(
        PolicyRef ref,
        String stateKey,
        KeyOutcome outcome,
        int index,
        boolean endsWithItsWindow,
        int shape,
        long shapeSeenAt,
        long sentAtNanos,
        long arrivedAtNanos,
        LeasePolicy.@Nullable Key heat) {
      Decision grant = outcome.decision(index);
      PacedLease paced = outcome.pacedLease(index);
      this.ref = ref;
      this.stateKey = stateKey;
      this.grantedAtNanos = outcome.decidedAtNanos();
      this.leaseNanos = outcome.leaseEndsAtNanos(index) - grantedAtNanos;
      this.endsAtHolderNanos = sentAtNanos + leaseNanos;
      this.endsWithItsWindow = endsWithItsWindow;
      this.shape = shape;
      this.shapeSeenAt = shapeSeenAt;
      // A paced lease's instants count from when the answer arrived: after the owner decided, so
      // each permit becomes usable here no earlier than there.
      this.firstUsableAtNanos =
          paced == null
              ? arrivedAtNanos
              : arrivedAtNanos + Math.max(0, paced.firstAtNanos() - grantedAtNanos);
      this.spacingNanos = paced == null ? 0 : paced.spacingNanos();
      this.lastAnsweredAtNanos = endsAtHolderNanos - leaseNanos;
      this.limit = grant.limit();
      this.resetAtNanos = arrivedAtNanos + grant.resetAfterNanos();
      this.remainingAtGrant = grant.remaining();
      this.permits = outcome.leased(index);
      this.left = new AtomicLong(permits);
      this.heat = heat;
    }

    /** The op that gives {@code unused} permits back to the owner. */
    KeyOp returning(long unused) {
      return KeyOp.returnLease(unused, grantedAtNanos, leaseNanos);
    }

    boolean endedAt(long nowNanos) {
      return nowNanos - endsAtHolderNanos >= 0;
    }

    /**
     * Whether this is a lease to the end of its window that answered nothing for {@link
     * #IDLE_WINDOW_LEASE_NANOS}: its key went quiet here, and on a long window its permits would
     * stay parked until the window ends. It is given back early, which frees them.
     */
    boolean idleAt(long nowNanos) {
      return endsWithItsWindow && nowNanos - lastAnsweredAtNanos >= IDLE_WINDOW_LEASE_NANOS;
    }

    /**
     * When the {@code n}-th permit (from 1) becomes usable here: at once, unless the lease is
     * paced. No overflow: a paced lease's permits all fall within its lifetime.
     */
    long usableAt(long n) {
      return firstUsableAtNanos + (n - 1) * spacingNanos;
    }

    /**
     * Takes {@code wanted} permits at {@code now}; returns what is left after, {@link #SPENT} if
     * too few are left (or, paced, they become usable only after the lease's end), or {@link
     * #NOT_YET} if a paced lease's next permits are not usable yet.
     */
    long take(long wanted, long now) {
      long before;
      do {
        before = left.get();
        if (before < wanted) {
          return SPENT;
        }
        if (spacingNanos > 0) {
          long usableAt = usableAt(permits - before + wanted);
          if (usableAt - endsAtHolderNanos >= 0) {
            return SPENT;
          }
          if (now - usableAt < 0) {
            return NOT_YET;
          }
        }
      } while (!left.compareAndSet(before, before - wanted));
      return before - wanted;
    }

    /**
     * Whether the take that left {@code after} of {@code taken} crossed into the last quarter: one
     * take only crosses it, so one thread asks for the next lease.
     */
    boolean crossedRenewal(long after, long taken) {
      long quarter = permits / 4;
      return permits >= RENEW_AHEAD_MIN_PERMITS
          && spacingNanos == 0
          && !endsWithItsWindow
          && after <= quarter
          && after + taken > quarter;
    }
  }

  /**
   * The answer to a request for {@code permits} on {@code stateKey} from a live lease of the key,
   * taking its permits; a denial, with the wait until they are usable, when the lease is paced and
   * its next permits are not usable yet; null when there is none, it has too few left or it has
   * ended (then the caller asks the owner). A lease holds no more than the policy's capacity, so a
   * request it answers is never one the owner would refuse as too big.
   */
  public @Nullable Decision answer(PolicyRef ref, String stateKey, long permits) {
    Lease lease = leases.get(stateKey);
    if (lease == null) {
      return null;
    }
    if ((ref.storesPolicyWithState() && !lease.ref.equals(ref))
        || (lease.endsWithItsWindow && shapeChanged(lease))) {
      // An inline policy under a state name, called with other parameters: the owner carries the
      // key's state over to them, and only it can say what they leave.
      // The rule changed shape (a shorter window, say): the owner carried the lease's permits over
      // as admitted now, and answering them until the old window's end could admit some once more
      // than the owner alone would. Given back instead, and the owner decides.
      if (leases.remove(stateKey, lease)) {
        replaced.add(lease);
        Lease next = lease.next;
        if (next != null) {
          replaced.add(next);
        }
      }
      return null;
    }
    long now = nanoClock.getAsLong();
    while (true) {
      long left = lease.endedAt(now) ? SPENT : lease.take(permits, now);
      if (left == NOT_YET) {
        return deniedUntilUsable(lease, permits, now);
      }
      if (left >= 0) {
        statistics.answeredLocally.add(permits);
        if (lease.endsWithItsWindow) {
          lease.lastAnsweredAtNanos = now; // a steady key's lease: no contention to speak of
        }
        if (lease.heat != null) {
          lease.heat.answeredLocally(now, lease.endsWithItsWindow);
        }
        if (lease.crossedRenewal(left, permits)) {
          renewAhead(lease, permits, now);
        }
        long used = lease.permits - left;
        Decision answer =
            new Decision(
                true,
                lease.limit,
                Math.max(0, lease.remainingAtGrant - used),
                0,
                Math.max(0, lease.resetAtNanos - now),
                0,
                false,
                Decision.DecidedBy.LEASE);
        return receipts == null
            ? answer
            : receipts.ofLeaseAnswer(
                ref, stateKey, permits, answer, lease.grantedAtNanos, lease.leaseNanos);
      }
      Lease next = lease.next;
      if (next == null) {
        return null;
      }
      // Spent or over: the lease granted ahead answers from now on, and what is left of this one
      // goes back with the next returns.
      if (leases.replace(stateKey, lease, next)) {
        replaced.add(lease);
        lease = next;
      } else {
        lease = leases.get(stateKey);
        if (lease == null) {
          return null;
        }
      }
    }
  }

  /**
   * Whether the shape of {@code lease}'s policy changed since it was granted: looked up only when
   * the copies moved since it was last found current.
   */
  private boolean shapeChanged(Lease lease) {
    long version = transport.rulesVersion();
    if (version != Backend.UNVERSIONED && version == lease.shapeSeenAt) {
      return false;
    }
    if (knownShape(lease.ref) != lease.shape) {
      return true;
    }
    lease.shapeSeenAt = version;
    return false;
  }

  /**
   * The fingerprint of {@code ref}'s state shape as known here, without waiting for a read (a
   * client's rule copies); 0 where it cannot be told, and for a rule that is gone.
   */
  private int knownShape(PolicyRef ref) {
    try {
      CompiledPolicy policy = transport.policyOf(ref, true);
      return policy == null ? 0 : policy.fingerprint();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /**
   * A paced lease's answer before its next permits are usable: denied, retry when they are. The
   * owner, asked instead, would deny too (it counted those permits for this holder), and the wait
   * is the one it would answer, or a little longer: instants here are the owner's, taken from when
   * its answer arrived.
   */
  private Decision deniedUntilUsable(Lease lease, long permits, long now) {
    statistics.deniedLocally.increment();
    if (lease.heat != null) {
      lease.heat.answeredLocally(now, false);
    }
    long used = lease.permits - lease.left.get();
    long retryAfter = Math.max(0, lease.usableAt(used + permits) - now);
    return new Decision(
        false,
        lease.limit,
        0,
        retryAfter,
        Math.max(lease.resetAtNanos - now, retryAfter),
        0,
        false,
        Decision.DecidedBy.LEASE);
  }

  /**
   * Asks for the next lease of {@code lease}'s key in the background, for requests of {@code
   * permits}, unless an ask is on its way already.
   */
  private void renewAhead(Lease lease, long permits, long now) {
    LeasePolicy.Key h = lease.heat;
    if (h == null || closing) {
      return;
    }
    LeaseAsk ask = h.renewal(now, permits);
    if (ask.permits() == 0) {
      return;
    }
    statistics.renewals.increment();
    KeyOp op = ask.acquire(0);
    PolicyRef ref = lease.ref;
    String stateKey = lease.stateKey;
    try {
      transport
          .executeAsync(new KeyCommand(stateKey, ref, new KeyOp[] {op}), Deadline.NONE)
          .whenComplete(
              (outcome, failure) -> {
                if (outcome != null) {
                  keep(ref, stateKey, op, outcome, 0, now);
                } else {
                  askFailed(stateKey);
                }
              });
    } catch (RuntimeException e) {
      askFailed(stateKey); // closed, or the transport refused it: a request asks next
    }
  }

  /** An ask for a lease of {@code stateKey} failed: the next request may ask again. */
  void askFailed(String stateKey) {
    demand.askEnded(stateKey);
  }

  /**
   * What to ask the owner of {@code stateKey} to lease along with a request for {@code permits}:
   * {@link LeaseAsk#NONE} unless the key is in a burst, warm or steady here, or quiet on a rule
   * whose lease to the end of the window ({@code windowLeaseNanos}, as known here; 0 where none or
   * not known) lasts a second or less ({@link LeaseDemand}). Counts the request. A quiet key asks
   * only while this holder holds fewer leases than it tracks keys ({@link
   * LeaseDemand#MAX_TRACKED_KEYS}): a rule keyed by something with millions of values, each asked
   * once, must not fill the holder with leases.
   */
  public LeaseAsk wanted(
      String stateKey, long permits, long windowLeaseNanos, long shortLeaseNanos) {
    long quietKeysLease = leases.size() < LeaseDemand.MAX_TRACKED_KEYS ? windowLeaseNanos : 0;
    return demand.wanted(
        stateKey, permits, nanoClock.getAsLong(), closing, quietKeysLease, shortLeaseNanos);
  }

  /**
   * Keeps the lease granted with operation {@code index} of {@code outcome}, if any: the answer to
   * a request that {@link #wanted} a lease; {@code sentAtNanos} is {@link #now()} just before it
   * went out. A lease it replaces is given back with the next {@link #takeReturns}.
   */
  void keep(
      PolicyRef ref,
      String stateKey,
      KeyOp asked,
      KeyOutcome outcome,
      int index,
      long sentAtNanos) {
    LeasePolicy.Key h = demand.key(stateKey);
    try {
      store(ref, stateKey, asked, outcome, index, sentAtNanos, h);
    } finally {
      // Only once the lease is stored: a closing holder waits for this before its last returns.
      if (h != null) {
        h.askEnded();
      }
    }
  }

  private void store(
      PolicyRef ref,
      String stateKey,
      KeyOp asked,
      KeyOutcome outcome,
      int index,
      long sentAtNanos,
      LeasePolicy.@Nullable Key h) {
    long permits = outcome.leased(index);
    if (permits <= 0) {
      return;
    }
    boolean toWindowEnd =
        asked.leaseNanos() == LeaseAsk.UNTIL_WINDOW_END || outcome.leaseToWindowEnd(index);
    long now = nanoClock.getAsLong();
    long version = transport.rulesVersion(); // before the shape: a change meanwhile moves it
    Lease lease =
        new Lease(
            ref,
            stateKey,
            outcome,
            index,
            toWindowEnd,
            toWindowEnd ? knownShape(ref) : 0,
            version,
            sentAtNanos,
            now,
            h);
    statistics.granted.increment();
    statistics.leased.add(permits);
    if (closing) {
      // Too late to answer from: it goes back with the last returns, or after them.
      replaced.add(lease);
      runIfLate();
      return;
    }
    leases.compute(
        stateKey,
        (key, current) -> {
          if (current != null
              && current.next == null
              && !current.endedAt(now)
              && current.left.get() > 0) {
            current.next = lease; // granted ahead: answers once the current one is spent
            return current;
          }
          if (current != null) {
            replaced.add(current);
            Lease queued = current.next;
            if (queued != null) {
              replaced.add(queued);
            }
          }
          return lease;
        });
    if (!toWindowEnd) {
      shortLeaseKeys.add(stateKey); // after the lease is in the map: see keepIfShort
    }
    if (closing) {
      runIfLate(); // closed while this was stored: the last returns may have missed it
    }
  }

  /**
   * Gives back the leases stored by now if the last returns were already taken: an ask that
   * outlived the close's wait. Called after storing; {@link #takeReturns} sets the flag before it
   * looks: so a lease stored before that look is taken by it, and one stored after it sees the
   * flag.
   */
  private void runIfLate() {
    if (lastReturnsTaken) {
      giveBack(true);
    }
  }

  /**
   * Whether {@code lease}, {@code key}'s lease as just read, or the one behind it is short or
   * paced; if not, {@code key} leaves {@link #shortLeaseKeys}. A short lease stored meanwhile is
   * put in the map before its key is added ({@link #store}), so after the removal the map is read
   * again and the key added back for it: no short lease is ever left to the full sweeps alone.
   */
  private boolean keepIfShort(String key, @Nullable Lease lease) {
    if (isShort(lease)) {
      return true;
    }
    shortLeaseKeys.remove(key);
    if (isShort(leases.get(key))) {
      shortLeaseKeys.add(key);
    }
    return false;
  }

  private static boolean isShort(@Nullable Lease lease) {
    if (lease == null) {
      return false;
    }
    Lease next = lease.next;
    return !lease.endsWithItsWindow || (next != null && !next.endsWithItsWindow);
  }

  /**
   * Drops this holder's lease of {@code stateKey} without giving it back: the key was reset, and
   * its state with the lease's count is gone.
   */
  void forget(String stateKey) {
    Lease lease = leases.remove(stateKey);
    for (; lease != null; lease = lease.next) {
      statistics.expiredUnused.add(lease.left.getAndSet(0));
    }
  }

  /**
   * Takes out every ended, replaced or idle lease (every lease, with {@code all}: the holder is
   * closing) and returns the commands that give their unused permits back, one per key; an ended
   * lease to the end of its window is taken out without one (see the class doc).
   */
  List<KeyCommand> takeReturns(boolean all) {
    if (all && closing) {
      lastReturnsTaken = true;
    }
    List<Lease> done = new ArrayList<>();
    for (Lease lease; (lease = replaced.poll()) != null; ) {
      done.add(lease);
    }
    long now = nanoClock.getAsLong();
    boolean everyLease = all || sweeps.getAndIncrement() % FULL_SWEEP_EVERY == 0;
    for (String stateKey : everyLease ? leases.keySet() : shortLeaseKeys) {
      Lease lease = leases.get(stateKey);
      if (!everyLease && !keepIfShort(stateKey, lease)) {
        continue;
      }
      if (lease == null || (!all && !lease.endedAt(now) && !lease.idleAt(now))) {
        continue;
      }
      // Atomic with keep(), which may be linking a next lease to this one right now.
      leases.computeIfPresent(
          stateKey,
          (key, current) -> {
            if (current != lease) {
              return current;
            }
            done.add(lease);
            Lease next = lease.next;
            if (next != null && !all && !next.endedAt(now) && !next.idleAt(now)) {
              return next;
            }
            if (next != null) {
              done.add(next);
            }
            return null;
          });
    }
    Map<String, List<KeyOp>> opsByKey = new LinkedHashMap<>();
    Map<String, PolicyRef> refs = new LinkedHashMap<>();
    for (Lease lease : done) {
      // A racing answer either took its permits before this or finds none left after it.
      long unused = lease.left.getAndSet(0);
      if (unused > 0 && lease.endsWithItsWindow && lease.endedAt(now)) {
        statistics.expiredUnused.add(unused);
      } else if (unused > 0) {
        String stateKey = lease.stateKey;
        opsByKey.computeIfAbsent(stateKey, key -> new ArrayList<>(1)).add(lease.returning(unused));
        refs.putIfAbsent(stateKey, lease.ref);
        statistics.returned.add(unused);
      }
    }
    List<KeyCommand> returns = new ArrayList<>(opsByKey.size());
    opsByKey.forEach(
        (stateKey, ops) ->
            returns.add(new KeyCommand(stateKey, refs.get(stateKey), ops.toArray(new KeyOp[0]))));
    return returns;
  }

  /**
   * Sends {@link #takeReturns}{@code (all)} to the owners, one command per key, asynchronously; a
   * return that fails is counted as lost (its permits stay counted until their window has passed,
   * as if they had been used).
   */
  CompletableFuture<?> giveBack(boolean all) {
    List<KeyCommand> returns = takeReturns(all);
    if (returns.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    try {
      return transport
          .executeAll(returns, Deadline.NONE)
          .whenComplete(
              (outcomes, failure) -> {
                if (failure != null) {
                  lost(returns);
                }
              });
    } catch (RuntimeException e) {
      lost(returns);
      return CompletableFuture.completedFuture(null);
    }
  }

  /**
   * Records that {@code returns} did not reach their owners: those permits stay counted until their
   * window (or bucket) has passed.
   */
  private void lost(List<KeyCommand> returns) {
    for (KeyCommand command : returns) {
      for (KeyOp op : command.ops()) {
        statistics.returned.add(-op.permits());
        statistics.expiredUnused.add(op.permits());
      }
    }
  }

  /** Whether any lease is held, or waits to be given back. */
  boolean holdsAny() {
    return !leases.isEmpty() || !replaced.isEmpty();
  }

  /** What this holder has counted since it started. */
  public Statistics statistics() {
    return statistics;
  }

  /**
   * The counts of a holder: leases granted, permits leased, answered here, given back, lost; and
   * what it keeps now.
   */
  public final class Statistics {
    private final LongAdder granted = new LongAdder();
    private final LongAdder leased = new LongAdder();
    private final LongAdder answeredLocally = new LongAdder();
    private final LongAdder returned = new LongAdder();
    private final LongAdder expiredUnused = new LongAdder();
    private final LongAdder renewals = new LongAdder();
    private final LongAdder deniedLocally = new LongAdder();

    /**
     * Requests denied here by a paced lease before its next permit's instant, without a network hop
     * (the owner had counted those permits for this holder).
     */
    public long deniedLocally() {
      return deniedLocally.sum();
    }

    /** Asks for a lease sent ahead of the current lease's end ("Renewing ahead"). */
    public long renewals() {
      return renewals.sum();
    }

    /** Keys with a lease here now, live or ended but not yet given back. */
    public long leasesHeld() {
      return leases.size();
    }

    /** Keys the lease policy keeps something of now ({@link LeasePolicy#keysTracked}). */
    public long keysTracked() {
      return demand.keysTracked();
    }

    /** Leases the owners granted. */
    public long granted() {
      return granted.sum();
    }

    /** Permits in those leases. */
    public long permitsLeased() {
      return leased.sum();
    }

    /** Permits handed to requests here, without a network hop. */
    public long answeredLocally() {
      return answeredLocally.sum();
    }

    /** Unused permits given back to their owners. */
    public long returned() {
      return returned.sum();
    }

    /**
     * Unused permits that were not given back (the owner was unreachable, the key was reset, or a
     * lease to the end of the window ended, when a return would free nothing): they stay counted
     * until their window has passed.
     */
    public long expiredUnused() {
      return expiredUnused.sum();
    }
  }
}
