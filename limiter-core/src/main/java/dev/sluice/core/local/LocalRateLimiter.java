package dev.sluice.core.local;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.RuleStore;
import dev.sluice.core.TimeSource;
import dev.sluice.core.pipeline.BackendStack;
import dev.sluice.core.pipeline.PipelineRateLimiter;
import dev.sluice.core.rules.InMemoryRuleStore;
import java.util.List;
import java.util.Objects;

/**
 * The Sluice algorithms in one JVM: for single-process services, and the reference runtime every
 * other one is checked against (the contract suite runs here first).
 *
 * <pre>{@code
 * RateLimiter limiter = LocalRateLimiter.builder().rules(RulesFile.load(path)).build();
 * if (!limiter.tryAcquire("login", clientIp).allowed()) { ... answer 429 ... }
 * }</pre>
 *
 * Every decision goes through the shared pipeline ({@link PipelineRateLimiter}, {@link
 * dev.sluice.core.decision.KeyDecision}) over a map of key states in this JVM ({@link
 * LocalBackend}, which explains the locking and when a state is forgotten), with no layer in front
 * of it: nothing here pays for a round trip.
 *
 * <p>Rule changes: a changed limit or burst keeps the counters; a changed window, algorithm, bucket
 * count or list of limits carries each key's state over into the new shape, never more permissive
 * than what was admitted (docs/algorithms.md).
 *
 * <p>Thread-safe. All operations complete synchronously; the async variants return completed
 * stages.
 */
public final class LocalRateLimiter extends PipelineRateLimiter {
  /**
   * Default bound on keys holding live state: about 250 MB of sliding_window state. A request on a
   * new key beyond it is denied rather than forgetting a state that still counts.
   */
  public static final long DEFAULT_MAX_KEYS = 1_000_000L;

  /** How often, in the limiter's time, idle states are swept out of memory. */
  public static final long SWEEP_INTERVAL_NANOS = 10_000_000_000L;

  private final LocalBackend local;

  private LocalRateLimiter(LocalBackend local) {
    super(BackendStack.over(local).build());
    this.local = local;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Keys holding state, approximately: idle keys count until they are swept. */
  public long keyCount() {
    return local.keyCount();
  }

  /**
   * Sweeps idle states out of memory now. It otherwise happens in the background as traffic flows;
   * this is for tests and for an exact {@link #keyCount()}.
   */
  public void cleanUp() {
    local.sweep();
  }

  /** Configures a {@link LocalRateLimiter}. */
  public static final class Builder {
    private TimeSource timeSource = TimeSource.system();
    private RuleStore rules = new InMemoryRuleStore();
    private long maxKeys = DEFAULT_MAX_KEYS;

    private Builder() {}

    /** Where {@code now} comes from; the system clock by default. */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
      return this;
    }

    /** The named rules; an empty {@link InMemoryRuleStore} by default. */
    public Builder rules(RuleStore rules) {
      this.rules = Objects.requireNonNull(rules, "rules");
      return this;
    }

    /** The named rules, held in a new {@link InMemoryRuleStore}. */
    public Builder rules(List<dev.sluice.core.Rule> rules) {
      return rules(InMemoryRuleStore.of(rules));
    }

    /** The most keys holding live state; {@link #DEFAULT_MAX_KEYS} by default. */
    public Builder maxKeys(long maxKeys) {
      if (maxKeys < 1) {
        throw new InvalidPolicyException("maxKeys", "must be at least 1, was " + maxKeys);
      }
      this.maxKeys = maxKeys;
      return this;
    }

    public LocalRateLimiter build() {
      return new LocalRateLimiter(new LocalBackend(timeSource, rules, maxKeys));
    }
  }
}
