package dev.sluice.spring.web;

import dev.sluice.client.middleware.KeyExtractor;
import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.client.middleware.TrustedProxies;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.spring.GateProperties;
import java.util.List;
import java.util.Objects;

/**
 * Turns one {@code sluice.gates} entry into the client SDK's {@link RateLimitGate}: the gate's
 * decision, headers and answers are that class's; this only reads the configuration. Errors name
 * the gate ({@code sluice.gates[2].key-header: ...}) and fail the start.
 */
public final class GateFactory {
  private final RateLimiter limiter;
  private final TrustedProxies trustedProxies;

  public GateFactory(RateLimiter limiter, List<String> trustedProxies) {
    this.limiter = Objects.requireNonNull(limiter, "limiter");
    this.trustedProxies = TrustedProxies.of(trustedProxies);
  }

  /** The gate of {@code sluice.gates[index]}. */
  public RateLimitGate gate(int index, GateProperties gate) {
    String name = "sluice.gates[" + index + "]";
    RateLimitGate.Builder builder = RateLimitGate.builder(limiter);
    if (gate.getRule() != null) {
      if (gate.getLimit() != null) {
        throw new IllegalArgumentException(name + ": give a rule or a limit and window, not both");
      }
      builder.rule(gate.getRule());
    } else if (gate.getLimit() != null && gate.getWindow() != null) {
      builder.policy(Policy.of(gate.getLimit(), gate.getWindow()));
    } else {
      throw new IllegalArgumentException(name + ": give a rule, or a limit and a window");
    }
    builder.key(keyOf(name, gate));
    if (gate.getCostExpression() != null) {
      RequestExpression cost = RequestExpression.parse(gate.getCostExpression());
      builder.cost(cost::costOf);
    } else {
      builder.cost(gate.getCost());
    }
    if (gate.getWaitUpTo() != null) {
      builder.waitUpTo(gate.getWaitUpTo());
    }
    return builder
        .rejectStatus(gate.getRejectStatus())
        .unavailableStatus(gate.getUnavailableStatus())
        .build();
  }

  /** The key extractor a gate's {@code key} names: the client SDK's, or an expression. */
  public KeyExtractor keyOf(String name, GateProperties gate) {
    return switch (gate.getKey()) {
      case IP -> KeyExtractor.clientIp(trustedProxies);
      case HEADER -> {
        if (gate.getKeyHeader() == null || gate.getKeyHeader().isBlank()) {
          throw new IllegalArgumentException(name + ".key-header: required with key: header");
        }
        yield KeyExtractor.header(gate.getKeyHeader());
      }
      case PRINCIPAL -> KeyExtractor.principal();
      case EXPRESSION -> {
        if (gate.getKeyExpression() == null || gate.getKeyExpression().isBlank()) {
          throw new IllegalArgumentException(
              name + ".key-expression: required with key: expression");
        }
        yield RequestExpression.parse(gate.getKeyExpression())::keyOf;
      }
    };
  }
}
