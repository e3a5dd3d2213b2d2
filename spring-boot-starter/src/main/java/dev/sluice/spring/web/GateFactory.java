package dev.sluice.spring.web;

import dev.sluice.client.middleware.KeyExtractor;
import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.client.middleware.TrustedProxies;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.spring.GateProperties;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.expression.ParseException;

/**
 * Turns one {@code sluice.gates} entry into the client SDK's {@link RateLimitGate}: the gate's
 * decision, headers and answers are that class's; this only reads the configuration. Errors are
 * {@link InvalidPolicyException}s whose field is the property at fault ({@code
 * sluice.gates[2].key-header}) and fail the start.
 */
public final class GateFactory {
  private final RateLimiter limiter;
  private final TrustedProxies trustedProxies;

  public GateFactory(RateLimiter limiter, List<String> trustedProxies) {
    this.limiter = Objects.requireNonNull(limiter, "limiter");
    this.trustedProxies = TrustedProxies.of(trustedProxies);
  }

  /**
   * The gate of {@code sluice.gates[index]}.
   *
   * @throws InvalidPolicyException naming the property at fault
   */
  public RateLimitGate gate(int index, GateProperties gate) {
    String name = "sluice.gates[" + index + "]";
    RateLimitGate.Builder builder = RateLimitGate.builder(limiter);
    if (gate.rule() != null) {
      if (gate.limit() != null || gate.window() != null) {
        throw new InvalidPolicyException(
            name + ".rule", "give a rule or a limit and window, not both");
      }
      at(name + ".rule", () -> builder.rule(gate.rule()));
    } else if (gate.limit() != null && gate.window() != null) {
      at(name + ".limit", () -> builder.policy(Policy.of(gate.limit(), gate.window())));
    } else {
      throw new InvalidPolicyException(
          name + ".rule", "a gate needs a rule, or a limit and a window of its own");
    }
    builder.key(keyOf(name, gate));
    if (gate.costExpression() != null) {
      RequestExpression cost =
          at(name + ".cost-expression", () -> RequestExpression.parse(gate.costExpression()));
      builder.cost(cost::costOf);
    } else {
      at(name + ".cost", () -> builder.cost(gate.cost()));
    }
    if (gate.waitUpTo() != null) {
      at(name + ".wait-up-to", () -> builder.waitUpTo(gate.waitUpTo()));
    }
    at(name + ".reject-status", () -> builder.rejectStatus(gate.rejectStatus()));
    at(name + ".unavailable-status", () -> builder.unavailableStatus(gate.unavailableStatus()));
    return builder.build();
  }

  /** The key extractor a gate's {@code key} names: the client SDK's, or an expression. */
  public KeyExtractor keyOf(String name, GateProperties gate) {
    return switch (gate.key()) {
      case IP -> KeyExtractor.clientIp(trustedProxies);
      case HEADER -> {
        if (gate.keyHeader() == null || gate.keyHeader().isBlank()) {
          throw new InvalidPolicyException(name + ".key-header", "required with key: header");
        }
        yield KeyExtractor.header(gate.keyHeader());
      }
      case PRINCIPAL -> KeyExtractor.principal();
      case EXPRESSION -> {
        if (gate.keyExpression() == null || gate.keyExpression().isBlank()) {
          throw new InvalidPolicyException(
              name + ".key-expression", "required with key: expression");
        }
        yield at(name + ".key-expression", () -> RequestExpression.parse(gate.keyExpression()))
            ::keyOf;
      }
    };
  }

  /**
   * {@code step}'s result; its refusal (an {@link IllegalArgumentException} such as the builder's
   * "cost: must be at least 1", or a SpEL {@link ParseException}) as an error naming {@code
   * property}, with the refusal's own words.
   */
  static <T> T at(String property, Supplier<T> step) {
    try {
      return step.get();
    } catch (IllegalArgumentException | ParseException e) {
      String message = String.valueOf(e.getMessage());
      int colon = message.indexOf(": ");
      boolean named = colon > 0 && !message.substring(0, colon).contains(" ");
      throw new InvalidPolicyException(property, named ? message.substring(colon + 2) : message);
    }
  }
}
