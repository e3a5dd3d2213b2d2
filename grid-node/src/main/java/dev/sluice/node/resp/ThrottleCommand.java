package dev.sluice.node.resp;

import dev.sluice.core.PolicyRef;

/**
 * {@code CL.THROTTLE key max_burst count_per_period period [quantity]}, answered as redis-cell 0.5
 * answers it on valid input: a gcra limit of {@code count_per_period} per {@code period} seconds
 * with a burst of {@code max_burst}, on the key's one state ({@link GcraPolicies}).
 *
 * <h2>The reply</h2>
 *
 * <pre>
 *   CL.THROTTLE user123 15 30 60          on a fresh key
 *   1) (integer) 0      limited: 0 allowed, 1 denied
 *   2) (integer) 16     limit: max_burst + 1
 *   3) (integer) 15     remaining
 *   4) (integer) -1     retry after, seconds; -1 when allowed
 *   5) (integer) 2      reset after, seconds: until the key is full again
 * </pre>
 *
 * Seconds as redis-cell rounds them: the whole seconds, plus one when at least a millisecond is
 * left over (2.001 s is 3; 2.0009 s is 2). Quantity 0 is a peek (limited 0). A quantity above the
 * limit can never be admitted: it is answered {@code 1 limit remaining -1 reset} and takes nothing.
 *
 * <h2>Where it differs from redis-cell, on purpose</h2>
 *
 * redis-cell reads its numbers without looking at their sign; a negative burst or rate makes a
 * limiter that denies everything, silently. Here a negative or non-integer number is {@code ERR
 * value is not an integer or out of range}, a zero count or period {@code ERR zero rates are not
 * supported}, a wrong number of arguments Redis's arity error, and numbers beyond Sluice's bounds
 * (a period over 30 days, a count or burst over 10^9) an error naming the argument.
 */
final class ThrottleCommand {
  private final GcraPolicies policies;

  ThrottleCommand(GcraPolicies policies) {
    this.policies = policies;
  }

  Step handle(RespCommand command, Session session) {
    if (command.size() > 6) {
      throw new CommandError(CommandTable.arityError("cl.throttle"));
    }
    long maxBurst = Arguments.cellInteger(command.bytes(2));
    long perPeriod = Arguments.cellInteger(command.bytes(3));
    long periodSeconds = Arguments.cellInteger(command.bytes(4));
    long quantity = command.size() == 6 ? Arguments.cellInteger(command.bytes(5)) : 1;
    if (maxBurst < 0 || perPeriod < 0 || periodSeconds < 0 || quantity < 0) {
      throw new CommandError(Arguments.NOT_AN_INTEGER);
    }
    if (perPeriod == 0 || periodSeconds == 0) {
      throw new CommandError(
          "ERR zero rates are not supported: count per period and period must be at least 1");
    }
    String key = command.text(1, "key");
    PolicyRef ref =
        policies.ref(maxBurst, perPeriod, nanos(periodSeconds), ThrottleCommand::argument);
    long limit = maxBurst + 1;
    return GcraPolicies.decide(ref, key, quantity, limit, ThrottleCommand::seconds);
  }

  /** {@code seconds} in nanoseconds; beyond 64 bits the largest (a period Sluice refuses). */
  private static long nanos(long seconds) {
    return seconds > Long.MAX_VALUE / 1_000_000_000L ? Long.MAX_VALUE : seconds * 1_000_000_000L;
  }

  /** redis-cell's rounding: whole seconds, plus one when at least a millisecond is left over. */
  static long seconds(long nanos) {
    long seconds = nanos / 1_000_000_000L;
    return nanos % 1_000_000_000L >= 1_000_000L ? seconds + 1 : seconds;
  }

  /** The argument a policy field comes from. */
  private static String argument(String field) {
    return switch (field) {
      case "limit" -> "count per period";
      case "window" -> "period";
      case "burst" -> "max_burst";
      default -> field;
    };
  }
}
