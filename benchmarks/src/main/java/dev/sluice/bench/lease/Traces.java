package dev.sluice.bench.lease;

import dev.sluice.bench.lease.SimTrace.Bursts;
import dev.sluice.bench.lease.SimTrace.Shape;
import dev.sluice.bench.lease.SimTrace.Zipf;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulator's standard traces: every algorithm on the load benchmark's skewed workload (S7:
 * Zipf s = 1.1 over 100,000 keys, 50 a second per key, one client), Zipf s = 0.8 to 1.2 at several
 * rates and with 1 to 64 holders, per-second and per-minute rules, hot keys under and at their
 * limit (S3, S3s), an attack on one key (S4), bursts on fresh keys, a diurnal ramp and key churn.
 * Each is generated from the seed, so the same seed gives the same requests.
 */
final class Traces {
  private Traces() {}

  private static final long SECOND = SimTrace.SECOND;

  /**
   * The standard traces, each {@code scale} times its full length (1 for the documented run, less
   * for a quick look).
   */
  static List<SimTrace> standard(long seed, double scale) {
    List<SimTrace> traces = new ArrayList<>();
    long ten = seconds(10, scale);
    for (String algorithm :
        List.of(
            "sliding_window",
            "fixed_window",
            "sliding_buckets",
            "sliding_log",
            "token_bucket",
            "gcra",
            "leaky_bucket")) {
      traces.add(
          zipf(
              "s7-" + algorithm.replace('_', '-'),
              "S7's keys: Zipf s = 1.1 over 100,000 keys, 20,000 a second, one holder",
              algorithm + " 50/1s",
              new Zipf(100_000, 1.1, 20_000, 1, ten, Shape.STEADY, 0, seed)));
    }
    traces.add(
        zipf(
            "zipf0.8-16h",
            "Zipf s = 0.8 over 10,000 keys, 20,000 a second, 16 holders",
            "sliding_window 50/1s",
            new Zipf(10_000, 0.8, 20_000, 16, ten, Shape.STEADY, 0, seed + 1)));
    traces.add(
        zipf(
            "zipf1.2-4h",
            "Zipf s = 1.2 over 10,000 keys, 20,000 a second, 4 holders",
            "token_bucket 50/1s",
            new Zipf(10_000, 1.2, 20_000, 4, ten, Shape.STEADY, 0, seed + 2)));
    traces.add(
        zipf(
            "zipf1.0-64h",
            "Zipf s = 1.0 over 10,000 keys, 50,000 a second, 64 holders",
            "sliding_window 100/1s",
            new Zipf(10_000, 1.0, 50_000, 64, seconds(4, scale), Shape.STEADY, 0, seed + 3)));
    traces.add(
        zipf(
            "low-rate",
            "Zipf s = 1.1 over 10,000 keys, 1,000 a second, 4 holders: mostly quiet keys",
            "sliding_window 10/1s",
            new Zipf(10_000, 1.1, 1_000, 4, seconds(30, scale), Shape.STEADY, 0, seed + 4)));
    traces.add(
        zipf(
            "high-rate",
            "Zipf s = 1.0 over 1,000 keys, 100,000 a second, 8 holders",
            "gcra 1000/1s",
            new Zipf(1_000, 1.0, 100_000, 8, seconds(3, scale), Shape.STEADY, 0, seed + 5)));
    for (String algorithm :
        List.of("sliding_window", "fixed_window", "sliding_log", "token_bucket", "gcra")) {
      traces.add(
          zipf(
              "minute-" + algorithm.replace('_', '-'),
              "a per-minute rule: Zipf s = 1.1 over 10,000 keys, 5,000 a second, 16 holders",
              algorithm + " 600/1m",
              new Zipf(10_000, 1.1, 5_000, 16, seconds(90, scale), Shape.STEADY, 0, seed + 6)));
    }
    traces.add(
        zipf(
            "hot-under",
            "S3: one key, 200,000 a second, one holder, a limit nothing reaches",
            "sliding_window 1000000/1s",
            new Zipf(1, 1.1, 200_000, 1, seconds(3, scale), Shape.STEADY, 0, seed + 7)));
    traces.add(
        zipf(
            "hot-saturated",
            "S3s: one key, 50,000 a second from 4 holders, 1,000 a second allowed",
            "sliding_window 1000/1s",
            new Zipf(1, 1.1, 50_000, 4, seconds(5, scale), Shape.STEADY, 0, seed + 8)));
    traces.add(
        zipf(
            "hot-saturated-gcra",
            "one key, 50,000 a second from 4 holders, gcra 1,000 a second",
            "gcra 1000/1s",
            new Zipf(1, 1.1, 50_000, 4, seconds(5, scale), Shape.STEADY, 0, seed + 9)));
    traces.add(
        zipf(
            "attack",
            "S4: one key allowed 10 a second, hammered 20,000 a second by 2 holders",
            "sliding_window 10/1s",
            new Zipf(1, 1.1, 20_000, 2, seconds(5, scale), Shape.STEADY, 0, seed + 10)));
    long burstsLength = seconds(10, scale);
    traces.add(
        new SimTrace(
            "bursts",
            "Zipf s = 1.0 over 10,000 keys at 5,000 a second, and every 500 ms 2,000 requests"
                + " within 50 ms on a new key, 8 holders",
            "token_bucket 100/1s",
            8,
            () ->
                SimTrace.merged(
                    new Zipf(10_000, 1.0, 5_000, 8, burstsLength, Shape.STEADY, 0, seed + 11)
                        .requests(),
                    new Bursts(SECOND / 2, 2_000, SECOND / 20, 8, burstsLength, seed + 12)
                        .requests())));
    traces.add(
        zipf(
            "diurnal",
            "Zipf s = 1.0 over 10,000 keys, a day in 20 s: 4,000 to 40,000 a second, 16 holders",
            "sliding_window 50/1s",
            new Zipf(10_000, 1.0, 40_000, 16, seconds(20, scale), Shape.DIURNAL, 0, seed + 13)));
    traces.add(
        zipf(
            "churn",
            "Zipf s = 1.1 over 10,000 keys whose identities last 5 s, 20,000 a second, 16 holders",
            "gcra 50/1s",
            new Zipf(10_000, 1.1, 20_000, 16, ten, Shape.STEADY, 5 * SECOND, seed + 14)));
    traces.add(
        zipf(
            "two-limits",
            "Zipf s = 1.1 over 10,000 keys, 10,000 a second, 8 holders, a second's and a"
                + " minute's limit",
            "sliding_window 50/1s & fixed_window 1000/1m",
            new Zipf(10_000, 1.1, 10_000, 8, seconds(30, scale), Shape.STEADY, 0, seed + 15)));
    return traces;
  }

  private static long seconds(double seconds, double scale) {
    return Math.max(SECOND / 2, (long) (seconds * scale * SECOND));
  }

  private static SimTrace zipf(String name, String description, String rule, Zipf zipf) {
    return new SimTrace(name, description, rule, zipf.holders(), zipf::requests);
  }
}
