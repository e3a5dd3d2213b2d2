package dev.sluice.bench.load;

/**
 * One scenario of the comparison: it measures its contenders ({@link Measurement}) and adds its
 * tables to the run's report. {@link LoadBench#SCENARIOS} lists them in the order they run.
 */
interface Scenario {

  /** The id {@code --only} selects it by: {@code S1} .. {@code S10}. */
  String id();

  void run(BenchContext context) throws Exception;
}
