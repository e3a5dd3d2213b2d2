package dev.sluice.bench.load;

import java.time.Duration;

/**
 * Runs rounds of one contender under a scenario's load: the Java {@link LoadDriver} around a {@link
 * Contender}, or an external generator (wrk, {@link WrkRunner}) that produces the same {@link
 * RoundResult}. {@link Measurement} warms every runner up and interleaves their rounds.
 */
public interface RoundRunner extends AutoCloseable {

  /** One round of at most {@code duration} and at most {@code maxOps} decisions. */
  RoundResult round(Workload load, Duration duration, long maxOps) throws Exception;

  /**
   * One measured round of {@code load}: its {@link Workload#leadIn} first where the runner can
   * tally one, then a round of {@link Workload#roundDuration}.
   */
  default RoundResult measuredRound(Workload load) throws Exception {
    return round(load, load.roundDuration(), load.maxOpsPerRound());
  }

  /** The warm-up before the measured rounds; its result is discarded. */
  default void warmUp(Workload load) throws Exception {
    round(load, load.warmup(), load.maxOpsPerRound());
  }

  @Override
  void close();

  /** The Java load driver calling {@code contender}. */
  static RoundRunner driven(Contender contender) {
    return new RoundRunner() {
      @Override
      public RoundResult round(Workload load, Duration duration, long maxOps) {
        return LoadDriver.round(contender, load, duration, maxOps);
      }

      @Override
      public RoundResult measuredRound(Workload load) {
        return LoadDriver.round(
            contender, load, load.leadIn(), load.roundDuration(), load.maxOpsPerRound());
      }

      @Override
      public void close() {
        contender.close();
      }
    };
  }
}
