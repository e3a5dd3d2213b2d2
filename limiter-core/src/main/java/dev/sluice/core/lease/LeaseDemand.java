package dev.sluice.core.lease;

import dev.sluice.core.Policy;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.LeaseAsk;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * When a lease holder asks a key's owner for a lease, and for how many permits: the requests it
 * counted on each key (the key's heat), and whether an ask for the key is on its way.
 *
 * <h2>When, and which lease</h2>
 *
 * Only where a lease pays. Three asks:
 *
 * <ul>
 *   <li><b>A short lease</b> ({@link Policy#MAX_LEASE_NANOS} at most; a paced one where the key has
 *       nothing to spare, {@link LeaseAsk#SHORT_OR_PACED}) for a key this holder asked about at
 *       least {@value #HOT_REQUESTS} times in one interval of {@value #INTERVAL_MILLIS} ms (a
 *       burst). It asks for what the key used in the busier of its current and last interval, one
 *       and a half times, at most {@value #MAX_WANTED} requests' worth.
 *   <li><b>A lease to the end of the window, or else a short or paced one</b> ({@link
 *       LeaseAsk#WINDOW_SHORT_OR_PACED}) for a key asked at {@value #WARM_REQUESTS_PER_SECOND} a
 *       second or more over the last second, not in a burst (a warm key). It asks for the last
 *       second's requests, one and a half times: the owner leases to the end of the window where
 *       the algorithm allows it and the key has room, and otherwise for the short lifetime, that
 *       ask's share of it (or paced, at the key's limit). A short lease of a key asked 10 to 50
 *       times a second answers one to five requests; the window's answers most of the window's
 *       (docs/decisions/warm-and-quiet-keys-to-window-end.md).
 *   <li><b>A lease to the end of the window</b> ({@link LeaseAsk#UNTIL_WINDOW_END}) for a key asked
 *       at least {@value #STEADY_REQUESTS_PER_SECOND} times a second, counted over a whole second,
 *       but less than warm (a steady key), which a short lease would rarely serve; and for any
 *       other key where such a lease lasts a second or less (a quiet key, {@link
 *       #QUIET_KEY_WINDOW_NANOS}). It asks for the last second's requests, one and a half times,
 *       rounded up, and at least one. The owner grants it only on a key far from its limit (at most
 *       a quarter of what is left) and only for the window algorithms ({@link KeyDecision}); such a
 *       lease costs the owner nothing beyond the request that carries the ask, since its unused
 *       permits are not given back once it ends ({@link LeaseHolder}).
 * </ul>
 *
 * <p>Rates are judged over a second because a shorter count is noise on the keys that matter here:
 * a key asked 2 or 3 times a second sees 3 or 4 requests within 200 ms now and then by chance, and
 * a short lease taken on that goes back unused, a return for nothing
 * (docs/decisions/warm-keys-lease.md). Traffic spread over many keys pays one map lookup per
 * request.
 *
 * <h2>One ask at a time per key</h2>
 *
 * When a lease runs out under many threads, one of them brings the next and the others are decided
 * at the owner without parking more permits. An ask whose answer was lost (a timeout) stops
 * blocking the next after one interval.
 *
 * <h2>Memory</h2>
 *
 * At most about {@value #MAX_TRACKED_KEYS} keys are tracked; beyond it the keys idle for two
 * seconds are forgotten, and all of them if that leaves more than three quarters. Thread-safe.
 */
public final class LeaseDemand implements LeasePolicy {
  /** Requests on a key within one {@link #INTERVAL_MILLIS} before a short lease (a burst). */
  public static final int HOT_REQUESTS = 8;

  /**
   * Requests a second on a key, over the last second, before a short lease (a warm key): at this
   * rate a lease of {@link #INTERVAL_MILLIS} ms answers one request on average.
   */
  static final int WARM_REQUESTS_PER_SECOND = 10;

  /**
   * Requests a second on a key, over the last second, before a lease to the end of its window is
   * asked for (a steady key): a key asked once a second would rarely use one before its window
   * ends, one asked twice mostly would.
   */
  static final int STEADY_REQUESTS_PER_SECOND = 2;

  /**
   * The longest lease to the end of the window that a key asks for however seldom it is asked (a
   * quiet key): such a lease ends with its window before it could be given back for answering
   * nothing ({@link LeaseHolder#IDLE_WINDOW_LEASE_NANOS}), so it costs the owner nothing beyond the
   * request that carries the ask, and it parks at most a permit or two here until its window ends.
   * A key asked less than once a second then pays a round trip once per window instead of once per
   * request. On a longer window an unused lease would go back after a second idle: a second call
   * for every request of a key asked less often than that.
   */
  static final long QUIET_KEY_WINDOW_NANOS = LeaseHolder.IDLE_WINDOW_LEASE_NANOS;

  /** The interval over which requests on a key are counted. */
  static final long INTERVAL_MILLIS = 100;

  /**
   * The most requests' worth of permits asked for in one lease: at millions of requests a second on
   * one key, tens of milliseconds' worth, so that a renewal has time to come back.
   */
  static final long MAX_WANTED = 65_536;

  /**
   * Keys whose heat is tracked at most; beyond it idle ones are forgotten ({@link KeyTable}).
   * Roughly 200 bytes a key (the map's node, the key's string and the heat, estimated from their
   * fields, not measured).
   */
  static final int MAX_TRACKED_KEYS = 32_768;

  private static final long INTERVAL_NANOS = INTERVAL_MILLIS * 1_000_000L;

  private final KeyTable<Heat> heat;

  /**
   * @param leased whether the holder holds a lease of a state key: such a key's heat is kept when
   *     idle keys are forgotten, since its lease's answers are counted in it
   */
  LeaseDemand(Predicate<String> leased) {
    this.heat = new KeyTable<>(MAX_TRACKED_KEYS, leased, Heat::new);
  }

  /**
   * Requests on one key in the current and the last interval, besides the seconds every policy
   * counts, and whether an ask for a lease of it is on its way.
   */
  static final class Heat extends KeyCounts {
    private long intervalStart;
    private int current;
    private int last;

    /**
     * Counts one request a lease answered. A short lease's (a hot or warm key's: many threads at
     * once) goes to the adder. One a lease to the end of the window answered is counted at its own
     * instant, under the monitor: a steady key's few requests a second do not contend for it.
     * Counted later, all at once, they would look like a burst when the lease is spent, and the key
     * would take short leases that end unused between its requests; and its seconds, not counted
     * meanwhile, would start over, so that it would not look steady for a second.
     */
    @Override
    public void answeredLocally(long nowNanos, boolean endsWithItsWindow) {
      if (endsWithItsWindow) {
        synchronized (this) {
          count(nowNanos, 1);
        }
      } else {
        answeredLocally.increment();
      }
    }

    /**
     * Counts {@code requests} more in the interval and the second at {@code now} (starting a new
     * one when the last is over), with the lease answers since the last count; returns the
     * interval's count. Called holding the monitor.
     */
    private int count(long now, int requests) {
      long added = requests + answeredLocally.sumThenReset();
      long elapsed = now - intervalStart;
      if (elapsed >= INTERVAL_NANOS || elapsed < 0) {
        last = elapsed >= 2 * INTERVAL_NANOS || elapsed < 0 ? 0 : current;
        current = 0;
        intervalStart = now;
      }
      countSecond(now, added);
      current = (int) Math.min(Integer.MAX_VALUE, current + added);
      return current;
    }

    /**
     * Whether the key asks at a steady rate: {@link #perSecond} at least {@value
     * #STEADY_REQUESTS_PER_SECOND}, over a whole second of counting. A new key's first requests
     * within a second are a burst so far, not a rate. Holding the monitor, after {@link #count}.
     */
    private boolean steadyAt(long now, long perSecond) {
      return perSecond >= STEADY_REQUESTS_PER_SECOND && now - countingSince >= SECOND_NANOS;
    }

    /**
     * Starts an ask for the next lease ahead of the current one's end, unless one is on its way: a
     * short lease of what the busier interval used, one and a half times, and at least {@link
     * LeaseHolder#RENEW_AHEAD_MIN_PERMITS} requests' worth.
     */
    @Override
    public synchronized LeaseAsk renewal(long nowNanos, long permitsPerRequest) {
      if (askPendingAt(nowNanos)) {
        return LeaseAsk.NONE;
      }
      askStarted(nowNanos);
      long seen = Math.max(last, count(nowNanos, 0));
      long wanted =
          Math.min(MAX_WANTED, Math.max(seen + seen / 2, LeaseHolder.RENEW_AHEAD_MIN_PERMITS));
      return new LeaseAsk(wanted * Math.max(1, permitsPerRequest), Policy.MAX_LEASE_NANOS);
    }
  }

  /**
   * What to ask the owner of {@code stateKey} to lease along with a request for {@code permits} at
   * {@code now}: {@link LeaseAsk#NONE} unless the key is in a burst, warm or steady here, or its
   * rule's lease to the end of the window ({@code windowLeaseNanos}, as known here; 0 where there
   * is none or it is not known) lasts a second or less; and for a request of no permits, or when
   * the holder is {@code closing}. Counts the request; an ask starts one, which {@link #askEnded}
   * ends.
   */
  @Override
  public LeaseAsk wanted(
      String stateKey,
      long permits,
      long now,
      boolean closing,
      long windowLeaseNanos,
      long shortLeaseNanos) {
    Heat h = heat.track(stateKey, now);
    long wanted;
    long lifetime;
    synchronized (h) {
      int burst = Math.max(h.last, h.count(now, 1));
      long perSecond = h.perSecond(now);
      // A check of no permits reads the state: it counts as heat but asks for nothing, or a
      // reader would park permits that others are then denied.
      boolean inBurst = burst >= HOT_REQUESTS;
      boolean warm = perSecond >= WARM_REQUESTS_PER_SECOND;
      // A key neither hot nor steady here still asks where its lease would end with a window of a
      // second or less: see QUIET_KEY_WINDOW_NANOS.
      boolean quietKeyLeases = windowLeaseNanos > 0 && windowLeaseNanos <= QUIET_KEY_WINDOW_NANOS;
      if ((!inBurst && !warm && !quietKeyLeases && !h.steadyAt(now, perSecond))
          || permits == 0
          || closing
          || h.askPendingAt(now)) {
        return LeaseAsk.NONE;
      }
      if (inBurst) {
        wanted = Math.min(MAX_WANTED, burst + burst / 2);
        lifetime = LeaseAsk.SHORT_OR_PACED;
      } else {
        wanted = Math.min(MAX_WANTED, Math.max(1, perSecond + (perSecond + 1) / 2));
        lifetime = warm ? LeaseAsk.WINDOW_SHORT_OR_PACED : LeaseAsk.UNTIL_WINDOW_END;
      }
      h.askStarted(now);
    }
    return new LeaseAsk(wanted * Math.max(1, permits), lifetime);
  }

  /** The heat of {@code stateKey}, or null if it is not tracked. */
  @Override
  public @Nullable Heat key(String stateKey) {
    return heat.get(stateKey);
  }

  @Override
  public int keysTracked() {
    return heat.size();
  }

  /**
   * Whether an ask for a lease is on its way at {@code now}: one whose answer has neither come back
   * nor failed, sent less than an interval ago.
   */
  @Override
  public boolean asking(long now) {
    return heat.asking(now);
  }
}
