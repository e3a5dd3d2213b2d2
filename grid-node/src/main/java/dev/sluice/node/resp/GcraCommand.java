package dev.sluice.node.resp;

import dev.sluice.core.PolicyRef;

/**
 * {@code GCRA key max_burst tokens_per_period period [TOKENS n]}, as Redis's unstable branch has
 * it: the same five integers as {@code CL.THROTTLE}, a period in seconds that may be a decimal
 * ({@code 0.5}), Redis's validation and error texts, and its rounding (seconds rounded up, any
 * remainder). It counts on the same state as {@code CL.THROTTLE} for a key ({@link GcraPolicies}).
 *
 * <pre>
 *   GCRA k 10 5 60            max_burst must be an integer >= 0      value is out of range, must be positive
 *   GCRA k 10 0 60            tokens_per_period >= 1                 value is out of range, value must between 1 and 9223372036854775807
 *   GCRA k 10 x 60                                                   value is not an integer or out of range
 *   GCRA k 10 5 0             0 &lt; period &lt; 1e12                period must be > 0 and &lt; 1e12
 *   GCRA k 10 5 x                                                    value is not a valid float
 *   GCRA k 10 5 60 TOKENS     TOKENS n, n >= 1                       Missing TOKENS value
 *   GCRA k 10 5 60 FOO 1                                             syntax error
 * </pre>
 *
 * Redis computes in microseconds and refuses parameters whose microsecond products overflow 64 bits
 * ("GCRA limiting uses microsecond accuracy..."); those are refused here with its text, before
 * Sluice's own bounds (a period of 1 ms to 30 days, at most 10^9 tokens per period or burst), which
 * name the argument. Sluice's emission interval is exact where Redis rounds it to a microsecond.
 */
final class GcraCommand {
  private static final String OVERFLOW =
      "ERR GCRA limiting uses microsecond accuracy. Combination of period, tokens_per_period and ";

  private final GcraPolicies policies;

  GcraCommand(GcraPolicies policies) {
    this.policies = policies;
  }

  Step handle(RespCommand command, Session session) {
    if (command.size() > 7) {
      throw new CommandError(CommandTable.arityError("gcra"));
    }
    long maxBurst =
        Arguments.redisInteger(command.bytes(2), "ERR value is out of range, must be positive");
    if (maxBurst < 0) {
      throw new CommandError("ERR value is out of range, must be positive");
    }
    long perPeriod = atLeastOne(command.bytes(3));
    double period = Arguments.redisDouble(command.bytes(4));
    if (!(period > 0) || period >= 1e12) {
      throw new CommandError("ERR period must be > 0 and < 1e12");
    }
    long tokens = 1;
    if (command.size() >= 6) {
      if (!command.is(5, "tokens")) {
        throw new CommandError("ERR syntax error");
      }
      if (command.size() == 6) {
        throw new CommandError("ERR Missing TOKENS value");
      }
      tokens = atLeastOne(command.bytes(6));
    }
    long limit = maxBurst < Long.MAX_VALUE ? maxBurst + 1 : maxBurst;
    long emissionMicros = Math.max(1, (long) (period * 1e6 / perPeriod + 0.5));
    if (emissionMicros > Long.MAX_VALUE / tokens) {
      throw new CommandError(OVERFLOW + "TOKENS would cause an overflow");
    }
    if (emissionMicros > Long.MAX_VALUE / limit) {
      throw new CommandError(OVERFLOW + "max_burst would cause an overflow");
    }
    String key = command.text(1, "key");
    PolicyRef ref = policies.ref(maxBurst, perPeriod, nanos(period), GcraCommand::argument);
    return GcraPolicies.decide(ref, key, tokens, limit, GcraCommand::ceilSeconds);
  }

  private static long atLeastOne(byte[] bytes) {
    long value = Arguments.redisInteger(bytes, Arguments.NOT_AN_INTEGER);
    if (value < 1) {
      throw new CommandError(
          "ERR value is out of range, value must between 1 and " + Long.MAX_VALUE);
    }
    return value;
  }

  /** Redis's rounding: whole seconds, rounded up. */
  static long ceilSeconds(long nanos) {
    return -Math.floorDiv(-nanos, 1_000_000_000L);
  }

  /**
   * {@code seconds} (below 1e12) to the nearest nanosecond; beyond 64 bits the largest (a period
   * Sluice refuses).
   */
  private static long nanos(double seconds) {
    double nanos = seconds * 1e9;
    return nanos >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.round(nanos);
  }

  private static String argument(String field) {
    return switch (field) {
      case "limit" -> "tokens_per_period";
      case "window" -> "period";
      case "burst" -> "max_burst";
      default -> field;
    };
  }
}
