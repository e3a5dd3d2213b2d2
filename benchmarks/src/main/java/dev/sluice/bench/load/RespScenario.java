package dev.sluice.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * S9: the Redis port. {@code redis-benchmark} (one binary, the same flags for every row) sends
 * {@code CL.THROTTLE} to a grid node's Redis port, the same GCRA as a Lua script by {@code EVALSHA}
 * to redis-server (how redis-cell's command runs on a Redis without modules), and a plain {@code
 * SET} to redis-server, the protocol's ceiling; 50 connections, one command or 16 pipelined in
 * flight on each, random keys or one hot key. redis-benchmark reads no answer's meaning, so S9s
 * counts over-admission apart: the Java driver saturates a few keys through each contender and
 * judges every admission.
 */
final class RespScenario implements Scenario {
  /** What the throughput rows ask: far above what random keys reach, reached on the hot key. */
  static final ThrottleParameters THROUGHPUT = new ThrottleParameters(99, 100_000, 1);

  /** What the saturating rows ask: 200 a second per key, a burst of 10, far below their load. */
  static final ThrottleParameters SATURATING = new ThrottleParameters(9, 200, 1);

  static final int SATURATED_KEYS = 8;

  /** One load shape of redis-benchmark: commands in flight per connection, and the keys. */
  record Variant(int pipeline, boolean randomKeys) {
    String label() {
      return String.format(
          Locale.ROOT,
          "-P %d, %s",
          pipeline,
          randomKeys
              ? String.format(Locale.ROOT, "%,d random keys", RedisBenchmarkRunner.KEYS)
              : "one hot key");
    }

    String sluice() {
      return "Sluice CL.THROTTLE (" + label() + ")";
    }

    String redisLua() {
      return "Redis + Lua EVALSHA (" + label() + ")";
    }

    String redisSet() {
      return "Redis SET (" + label() + ")";
    }
  }

  static final List<Variant> VARIANTS =
      List.of(
          new Variant(1, true),
          new Variant(16, true),
          new Variant(1, false),
          new Variant(16, false));

  static final String SLUICE_SATURATED = "Sluice CL.THROTTLE, saturated";
  static final String REDIS_SATURATED = "Redis + Lua EVALSHA, saturated";

  @Override
  public String id() {
    return "S9";
  }

  @Override
  public void run(BenchContext context) {
    Workload load = context.settings().workload(1, KeySpace.hot("unused"));
    ScenarioResult s =
        new ScenarioResult(
            "S9",
            "Redis protocol: CL.THROTTLE on a grid node vs GCRA in Lua on Redis",
            "redis-benchmark ("
                + RedisBenchmarkRunner.version()
                + ", "
                + RedisBenchmarkRunner.CONNECTIONS
                + " connections, `-P 1` or `-P 16`, random keys with `-r "
                + RedisBenchmarkRunner.KEYS
                + "` or one hot key; a round is as many requests as the last round's rate fills"
                + " the round with) sends `CL.THROTTLE key "
                + String.join(" ", THROUGHPUT.arguments())
                + "` ("
                + THROUGHPUT.describe()
                + ") to a grid node's Redis port (`sluice-node.jar`, its own JVM), the same GCRA"
                + " and the same five answers as a Lua script called by `EVALSHA sha 1 key "
                + String.join(" ", THROUGHPUT.arguments())
                + "` to redis-server, and `SET key x` to redis-server: the protocol's ceiling."
                + " Random keys never reach the limit; the hot key is denied beyond it. Latency is"
                + " redis-benchmark's, from a pipeline's send to each answer. Ratios compare the"
                + " rows of one load shape.");
    s.overAdmissionCountedElsewhere(
        "**Over-admission is counted in S9s below**, not here: redis-benchmark reads no answer's"
            + " meaning. S9s saturates keys through the same two limiters with the Java driver,"
            + " which judges every admission.");
    List<ContenderSpec> specs = new ArrayList<>();
    for (Variant variant : VARIANTS) {
      String group = variant.label();
      specs.add(
          new ContenderSpec(
              variant.sluice(),
              group,
              (c, r) ->
                  runner(
                      "sluice",
                      c.servers().node().respPort(),
                      variant,
                      key -> command("CL.THROTTLE", key, THROUGHPUT.arguments()))));
      specs.add(
          new ContenderSpec(
              variant.redisLua(),
              group,
              (c, r) -> {
                RedisServer redis = c.servers().redis();
                String sha = RedisGcraLua.load(redis);
                return runner(
                    "redis-lua",
                    redis.port(),
                    variant,
                    key -> command("EVALSHA", sha, "1", key, THROUGHPUT.arguments()));
              }));
      specs.add(
          new ContenderSpec(
              variant.redisSet(),
              group,
              (c, r) ->
                  runner(
                      "redis-set",
                      c.servers().redis().port(),
                      variant,
                      key -> List.of("SET", key, "x"))));
    }
    // The factories read no rule: each row's command carries its parameters.
    Measurement.run(context, s, load, BenchRule.OPEN, specs);
    context.report().scenario(s);

    Workload saturating =
        context
            .settings()
            .workload(16, KeySpace.uniform("sat", SATURATED_KEYS))
            .countingExactness();
    ScenarioResult saturated =
        new ScenarioResult(
            "S9s",
            "Redis protocol, saturated: over-admission of CL.THROTTLE and of GCRA in Lua",
            "The Java driver's 16 threads call "
                + saturating.keys().description()
                + " through one Lettuce connection per contender (Lettuce pipelines the threads'"
                + " commands on it), `CL.THROTTLE key "
                + String.join(" ", SATURATING.arguments())
                + "` ("
                + SATURATING.describe()
                + ") on the grid node and the same script by `EVALSHA` on redis-server: far more"
                + " than the limit, so nearly every answer is a denial, and every admission is"
                + " judged against burst plus rate.");
    Measurement.run(
        context,
        saturated,
        saturating,
        BenchRule.OPEN,
        List.of(
            ContenderSpec.driven(
                SLUICE_SATURATED,
                "saturated",
                (c, r) ->
                    new RespThrottleContender(
                        SLUICE_SATURATED, c.servers().node().respPort(), SATURATING)),
            ContenderSpec.driven(
                REDIS_SATURATED,
                "saturated",
                (c, r) -> new RedisGcraLua(REDIS_SATURATED, c.servers().redis(), SATURATING))));
    context.report().scenario(saturated);
  }

  /** The command with {@code key}, for one row: its parameters follow. */
  private static List<String> command(String name, String key, List<String> parameters) {
    List<String> command = new ArrayList<>(List.of(name, key));
    command.addAll(parameters);
    return command;
  }

  private static List<String> command(
      String name, String sha, String keyCount, String key, List<String> parameters) {
    List<String> command = new ArrayList<>(List.of(name, sha, keyCount, key));
    command.addAll(parameters);
    return command;
  }

  private interface Command {
    List<String> with(String key);
  }

  /** A redis-benchmark runner of {@code command} on keys of this row's own. */
  private static RedisBenchmarkRunner runner(
      String label, int port, Variant variant, Command command) {
    String prefix = "s9:" + ContenderKeys.prefix();
    String key = prefix + (variant.randomKeys() ? "k" + RedisBenchmarkRunner.RANDOM : "hot");
    return RedisBenchmarkRunner.start(
        label + "-p" + variant.pipeline() + (variant.randomKeys() ? "-random" : "-hot"),
        port,
        variant.pipeline(),
        variant.randomKeys(),
        command.with(key));
  }
}
