package dev.sluice.bench.load;

/**
 * A contender as a scenario lists it: its name, the group it compares with (the report prints
 * Sluice/peer ratios within a group: {@code "client"}, {@code "embedded"}, a load generator), and
 * how to start it for the scenario's rule. Starting may fail (a server that is not installed, a
 * piece that has not landed): {@link Measurement} then reports it as "not run" with the reason.
 * {@link Contenders} holds the catalogue; a scenario's list reads one contender per line.
 */
public record ContenderSpec(String name, String group, Factory factory) {

  /** Starts the contender in {@code context} for {@code rule}. */
  @FunctionalInterface
  public interface Factory {
    RoundRunner start(BenchContext context, BenchRule rule) throws Exception;
  }

  /** A contender driven by the Java load driver. */
  @FunctionalInterface
  public interface ContenderFactory {
    Contender create(BenchContext context, BenchRule rule) throws Exception;
  }

  /** A spec whose contender runs under the Java {@link LoadDriver}. */
  public static ContenderSpec driven(String name, String group, ContenderFactory factory) {
    return new ContenderSpec(
        name, group, (context, rule) -> RoundRunner.driven(factory.create(context, rule)));
  }

  /** The same contender enforcing {@code fixed} whatever the scenario's rule is. */
  public ContenderSpec withRule(BenchRule fixed) {
    Factory inner = factory;
    return new ContenderSpec(name, group, (context, rule) -> inner.start(context, fixed));
  }
}
