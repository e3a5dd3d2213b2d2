package dev.sluice.bench.load;

import dev.sluice.client.SluiceClient;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What a budget per partition for keys far from their limit could buy (a design proposed on issue
 * 18, not built): a <em>ceiling</em> for S7, not a limiter, in the way {@link DriverCeiling} is the
 * driver's. It is not exact and is never a Sluice row.
 *
 * <p>The design: a holder asks each partition's owner, once per {@value #PERIOD_MILLIS} ms, for a
 * budget of {@value #PER_KEY} permit per key on every key of the partition except those the owner
 * lists as near their limit; it answers such keys locally within the budget and reports what it
 * used with its next ask. This contender does the same traffic without the owner's side: the SDK
 * (its defaults) in front of the grid; a key is answered locally at most {@value #PER_KEY} time per
 * period if this holder's last grid answer for it (within a second) left at least {@value
 * #NEAR_LIMIT} permits, or if it has no answer for it (with one holder, as in S7, such a key has no
 * state at the owner); every {@value #PERIOD_MILLIS} ms the keys used go to the owners as one
 * asynchronous batch ({@link SluiceClient#tryAcquireAllAsync}: a message per member and lane),
 * which counts them there. The owner's reservation at grant time, which would make the design
 * exact, is missing: the admissions are counted up to a period late, and the exactness tally shows
 * what that lets through.
 */
final class PartitionBudgetCeiling implements Contender {
  static final String NAME = "Ceiling of partition budgets (not exact, not a Sluice row)";
  static final long PERIOD_MILLIS = 100;
  static final int PER_KEY = 1;
  static final long NEAR_LIMIT = 10;
  private static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
  private static final long ANSWER_TTL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final SluiceClient client;
  private final BenchRule rule;
  private final ConcurrentHashMap<String, KeyBudget> keys = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<String> used = new ConcurrentLinkedQueue<>();
  private final ScheduledExecutorService reporter =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "budget-reports");
            thread.setDaemon(true);
            return thread;
          });

  /** One key as this holder knows it. Guarded by its monitor. */
  private static final class KeyBudget {
    long period = Long.MIN_VALUE;
    int usedInPeriod;
    long remaining = Long.MAX_VALUE;
    long answeredAt;
  }

  PartitionBudgetCeiling(SluiceClient client, BenchRule rule) {
    this.client = client;
    this.rule = rule;
    reporter.scheduleWithFixedDelay(
        this::report, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Outcome decide(String key) {
    long now = System.nanoTime();
    KeyBudget budget = keys.computeIfAbsent(key, k -> new KeyBudget());
    synchronized (budget) {
      long period = now / PERIOD_NANOS;
      if (budget.period != period) {
        budget.period = period;
        budget.usedInPeriod = 0;
      }
      boolean farFromLimit =
          budget.remaining >= NEAR_LIMIT || now - budget.answeredAt > ANSWER_TTL_NANOS;
      if (farFromLimit && budget.usedInPeriod < PER_KEY) {
        budget.usedInPeriod++;
        budget.remaining--;
        used.add(key);
        return Outcome.ALLOWED_LOCALLY;
      }
    }
    Decision decision = client.tryAcquire(rule.name(), key);
    synchronized (budget) {
      budget.remaining = decision.remaining();
      budget.answeredAt = System.nanoTime();
    }
    return SluiceContenders.LimiterContender.outcomeOf(decision);
  }

  /** Counts the period's local answers at the owners. */
  private void report() {
    List<Check> checks = new ArrayList<>();
    for (String key; (key = used.poll()) != null; ) {
      checks.add(Check.of(rule.name(), key));
    }
    if (!checks.isEmpty()) {
      client.tryAcquireAllAsync(checks);
    }
  }

  @Override
  public Optional<Policy> enforced() {
    return Optional.of(rule.policy());
  }

  @Override
  public void close() {
    reporter.shutdownNow();
    client.close();
  }
}
