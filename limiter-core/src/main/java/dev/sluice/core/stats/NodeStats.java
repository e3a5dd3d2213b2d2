package dev.sluice.core.stats;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Everything one node keeps for its console, in bounded memory: what the deciding threads record
 * ({@link RuleTally} per rule, {@link LatencyHistogram}, {@link LimitedKeys}, {@link FrontEnds})
 * and, once a second, the {@link #tick} that turns their running totals into 15 minutes of
 * per-second history ({@link SecondRing}).
 *
 * <h2>Cost per decision</h2>
 *
 * A decision costs one striped counter increment ({@link RuleTally#record}); a timed one three more
 * ({@link LatencyHistogram#record}), and two for its rule's mean ({@link RuleTally#recordLatency});
 * a denial one compare-and-set into the sketch's buffer, and now and then that buffer's drain
 * ({@link LimitedKeys}). No lock is taken on the decision path: the tick, which runs on its own
 * thread, does the per-second work.
 *
 * <h2>Memory</h2>
 *
 * History: {@value #MAX_RULES} rules × 5 numbers (3 outcomes, timed checks, their mean latency) ×
 * 900 seconds × 4 bytes = 1.15 MB at most, plus 14 KB of the node's latency; a rule whose 15
 * minutes are all zero gives its ring back. Rules past {@value #MAX_RULES} that decide on this node
 * count together as {@value #OTHER_RULES}. Limited keys: under 1 MB ({@link LimitedKeys}).
 *
 * <h2>Seconds</h2>
 *
 * Seconds are epoch seconds of the node's wall clock, so that members' series line up when merged.
 * {@link #started} ticks just after each second ends; what was recorded since the previous tick
 * counts in the second that ended (a decision in the last milliseconds of a second may count in the
 * next one). Tests make a node with {@link #manual} and call {@link #tick} themselves.
 */
public final class NodeStats implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(NodeStats.class.getName());

  static final int MAX_RULES = 64;
  static final String OTHER_RULES = "~other";

  /** How long after a second ends its tick runs. */
  private static final long TICK_LAG_MILLIS = 20;

  /** How long after a second ends a snapshot includes it. */
  private static final long SETTLE_MILLIS = 150;

  private final String node;
  private final LimitedKeys limitedKeys = new LimitedKeys();
  private final ConcurrentHashMap<String, RuleTally> tallies = new ConcurrentHashMap<>();
  private final LatencyHistogram latency = new LatencyHistogram();
  private final FrontEnds frontEnds = new FrontEnds();
  private volatile Supplier<LeaseTotals> leases = () -> LeaseTotals.NONE;
  private final List<Runnable> afterTick = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final @Nullable Thread ticker;

  // Guarded by this.
  private final Map<String, SecondRing> ruleRings = new HashMap<>();
  private final SecondRing latencyRing = new SecondRing(4);
  private long lastTicked = Long.MIN_VALUE;

  private NodeStats(String node, @Nullable LongSupplier wallClockMillis) {
    this.node = node;
    if (wallClockMillis == null) {
      this.ticker = null;
    } else {
      Thread thread = new Thread(() -> tickEverySecond(wallClockMillis), "sluice-stats-" + node);
      thread.setDaemon(true);
      this.ticker = thread;
      thread.start();
    }
  }

  /** Stats for {@code node} (its name in the console), ticked by a thread of their own. */
  public static NodeStats started(String node) {
    return new NodeStats(node, System::currentTimeMillis);
  }

  /** Stats ticked only by the caller ({@link #tick}): for tests. */
  public static NodeStats manual(String node) {
    return new NodeStats(node, null);
  }

  /** The name of the node in the console. */
  public String node() {
    return node;
  }

  /** The counters of {@code rule}; callers keep the answer (a map lookup otherwise). */
  public RuleTally tally(String rule) {
    RuleTally tally = tallies.get(rule);
    if (tally != null) {
      return tally;
    }
    String kept = tallies.size() < MAX_RULES ? rule : OTHER_RULES;
    return tallies.computeIfAbsent(kept, r -> new RuleTally(r, limitedKeys));
  }

  /** Records the latency of one decision that went to a key's owner; on the decision path. */
  public void recordLatency(long nanos) {
    latency.record(nanos);
  }

  /** Where this node's front ends report what they serve. */
  public FrontEnds frontEnds() {
    return frontEnds;
  }

  /** Where the leases held by this node are counted (none by default). */
  public void leases(Supplier<LeaseTotals> totals) {
    this.leases = totals;
  }

  /**
   * Closes the second {@code epochSecond}: what was recorded since the previous tick counts in it.
   * Seconds go forward; a tick for a second already closed does nothing.
   */
  public synchronized void tick(long epochSecond) {
    if (lastTicked != Long.MIN_VALUE && epochSecond <= lastTicked) {
      return;
    }
    for (RuleTally tally : tallies.values()) {
      int[] second = tally.drainSecond();
      SecondRing ring = ruleRings.get(tally.rule());
      if (ring == null && (second[0] | second[1] | second[2]) != 0) {
        ring = new SecondRing(5);
        ruleRings.put(tally.rule(), ring);
      }
      if (ring != null) {
        ring.put(epochSecond, second);
        if ((second[0] | second[1] | second[2]) == 0 && ring.allZero()) {
          ruleRings.remove(tally.rule());
        }
      }
    }
    latencyRing.put(epochSecond, latency.drainSecond());
    limitedKeys.tick(epochSecond);
    lastTicked = epochSecond;
    for (Runnable listener : afterTick) {
      listener.run();
    }
  }

  /** Runs {@code listener} after each tick, on the ticking thread (e.g. to refresh a gauge). */
  public void afterEachTick(Runnable listener) {
    afterTick.add(listener);
  }

  /**
   * Per rule, the distinct keys this node denied in the last one to two minutes, as its sketches
   * hold them: at most {@code 2 × 32} per rule, so a count near 64 means "many".
   */
  public Map<String, Integer> limitedKeyCounts() {
    Map<String, Integer> counts = new java.util.TreeMap<>();
    limitedKeys.summaries(null).forEach((rule, keys) -> counts.put(rule, keys.keys().size()));
    return counts;
  }

  /**
   * This node's series for the {@code seconds} seconds up to and including {@code untilSecond} (at
   * most 900), its totals, and its limited keys: of every rule when {@code keysOf} is empty, of
   * that rule when it names one, none when it is null.
   */
  public NodeSnapshot snapshot(long untilSecond, int seconds, @Nullable String keysOf) {
    if (seconds < 0 || seconds > SecondRing.SECONDS) {
      throw new IllegalArgumentException(
          "seconds must be between 0 and " + SecondRing.SECONDS + ", was " + seconds);
    }
    List<RuleRates> rates = new ArrayList<>();
    LatencySeries latencies;
    synchronized (this) {
      if (seconds > 0) {
        ruleRings.forEach(
            (rule, ring) ->
                rates.add(
                    new RuleRates(
                        rule,
                        ring.read(0, untilSecond, seconds),
                        ring.read(1, untilSecond, seconds),
                        ring.read(2, untilSecond, seconds),
                        ring.read(3, untilSecond, seconds),
                        ring.read(4, untilSecond, seconds))));
      }
      latencies =
          new LatencySeries(
              latencyRing.read(0, untilSecond, seconds),
              latencyRing.read(1, untilSecond, seconds),
              latencyRing.read(2, untilSecond, seconds),
              latencyRing.read(3, untilSecond, seconds));
    }
    rates.removeIf(rule -> rule.total() == 0);
    rates.sort(Comparator.comparing(RuleRates::rule));
    Map<String, KeySummary> keys =
        keysOf == null ? Map.of() : limitedKeys.summaries(keysOf.isEmpty() ? null : keysOf);
    return new NodeSnapshot(
        node,
        untilSecond,
        seconds,
        rates,
        latencies,
        leases.get(),
        frontEnds.totals(),
        keys,
        limitedKeys.untrackedDenials(),
        null);
  }

  /**
   * The last second that every node's ticker has closed at wall-clock time {@code epochMillis}:
   * seconds that ended at least {@value #SETTLE_MILLIS} ms ago (ticks run {@value #TICK_LAG_MILLIS}
   * ms after a second ends, and members' clocks differ by a few ms).
   */
  public static long lastClosedSecond(long epochMillis) {
    return Math.floorDiv(epochMillis - SETTLE_MILLIS, 1000) - 1;
  }

  /** Stops the ticker thread (a {@link #manual} node has none). */
  @Override
  public void close() {
    if (ticker != null) {
      ticker.interrupt();
    }
  }

  private void tickEverySecond(LongSupplier wallClockMillis) {
    long next = Math.floorDiv(wallClockMillis.getAsLong(), 1000) + 1; // the first second to end
    while (!Thread.currentThread().isInterrupted()) {
      long wait = next * 1000 + TICK_LAG_MILLIS - wallClockMillis.getAsLong();
      try {
        if (wait > 0) {
          Thread.sleep(Math.min(wait, Duration.ofSeconds(2).toMillis()));
          continue;
        }
        long now = Math.floorDiv(wallClockMillis.getAsLong(), 1000);
        tick(now - 1);
        next = now + 1;
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.WARNING,
            "console stats: a tick failed ({0}); the next one retries",
            e.toString());
        next++;
      }
    }
  }
}
