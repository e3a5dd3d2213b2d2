package dev.sluice.rest;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;

/**
 * The decision routes: check, batch check, peek and reset. Each one validates everything first and
 * only then asks the limiter, so a rejected request counts nothing.
 */
final class CheckRoutes {
  private final RateLimiter limiter;
  private final Bodies bodies;
  private final SluiceMetrics metrics;
  private final int maxBatchChecks;

  CheckRoutes(RateLimiter limiter, Bodies bodies, SluiceMetrics metrics, int maxBatchChecks) {
    this.limiter = limiter;
    this.bodies = bodies;
    this.metrics = metrics;
    this.maxBatchChecks = maxBatchChecks;
  }

  /** {@code POST /v1/check}: 200 allowed, 429 denied. */
  void check(Context ctx) {
    Resolved resolved = resolve(bodies.read(ctx, CheckRequest.class), "");
    Check check = resolved.check();
    Decision decision =
        check.rule() != null
            ? limiter.tryAcquire(check.rule(), check.key(), check.permits())
            : limiter.tryAcquire(resolved.policy(), check.key(), check.permits());
    metrics.recordDecision(resolved.label(), decision);
    RateLimitHeaders.apply(ctx, resolved.label(), resolved.policy().window(), decision);
    respond(ctx, decision.allowed() ? 200 : 429, resolved.body(decision));
  }

  /** {@code POST /v1/check/batch}: 200 if every check is allowed, else 429. */
  void batch(Context ctx) {
    BatchRequest request = bodies.read(ctx, BatchRequest.class);
    if (request.checks() == null) {
      throw ApiError.invalidField(
          "checks", "is required: an array of 1 to " + maxBatchChecks + " checks");
    }
    int size = request.checks().size();
    if (size < 1 || size > maxBatchChecks) {
      throw ApiError.invalidField(
          "checks", "must hold 1 to " + maxBatchChecks + " checks, was " + size);
    }
    List<Resolved> resolved = new ArrayList<>(size);
    List<Check> checks = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      CheckRequest element = request.checks().get(i);
      String at = "checks[" + i + "].";
      if (element == null) {
        throw ApiError.invalidField("checks[" + i + "]", "must be an object, was null");
      }
      Resolved one = resolve(element, at);
      resolved.add(one);
      checks.add(one.check());
    }
    List<Decision> decisions = limiter.tryAcquireAll(checks);

    List<DecisionBody> results = new ArrayList<>(size);
    boolean allAllowed = true;
    int headline = 0;
    for (int i = 0; i < size; i++) {
      Decision decision = decisions.get(i);
      metrics.recordDecision(resolved.get(i).label(), decision);
      results.add(resolved.get(i).body(decision));
      allAllowed &= decision.allowed();
      if (moreRestrictive(decision, decisions.get(headline))) {
        headline = i;
      }
    }
    Resolved head = resolved.get(headline);
    RateLimitHeaders.apply(ctx, head.label(), head.policy().window(), decisions.get(headline));
    respond(ctx, allAllowed ? 200 : 429, new BatchBody(allAllowed, results));
  }

  /** {@code GET /v1/limits/{rule}/{key}}: the key's state, consuming nothing. */
  void peek(Context ctx) {
    Rule rule = ruleFromPath(ctx);
    String key = keyFromPath(ctx);
    Decision decision = limiter.peek(rule.name(), key);
    RateLimitHeaders.apply(ctx, rule.name(), rule.policy().window(), decision);
    respond(ctx, 200, DecisionBody.of(decision, rule.name(), rule.policy().algorithm()));
  }

  /** {@code DELETE /v1/limits/{rule}/{key}} (admin): the key is back to full capacity. */
  void reset(Context ctx) {
    Rule rule = ruleFromPath(ctx);
    limiter.reset(rule.name(), keyFromPath(ctx));
    ctx.status(204);
  }

  /**
   * Validates one request completely, including that its rule exists and its cost fits the rule's
   * capacity, so that a batch fails before any of its checks is counted.
   */
  private Resolved resolve(CheckRequest request, String at) {
    Check check;
    Policy policy;
    try {
      check = request.toCheck();
      policy = check.policy() != null ? check.policy() : lookUp(check.rule(), at);
      long capacity = LimiterAlgorithm.of(policy).capacity();
      if (check.permits() > capacity) {
        throw new InvalidPolicyException(
            "cost",
            "asks for "
                + check.permits()
                + " permits but the "
                + (check.rule() != null ? "rule '" + check.rule() + "'" : "policy")
                + " never holds more than "
                + capacity);
      }
    } catch (InvalidPolicyException e) {
      throw ApiError.invalidField(at + e.field(), problem(e));
    }
    String label = check.rule() != null ? check.rule() : StateKey.INLINE_NAMESPACE;
    return new Resolved(check, policy, label);
  }

  private Policy lookUp(String rule, String at) {
    return limiter
        .rules()
        .find(rule)
        .orElseThrow(() -> new ApiError(404, ApiError.UNKNOWN_RULE, unknownRule(at, rule)))
        .policy();
  }

  private Rule ruleFromPath(Context ctx) {
    String name = ctx.pathParam("rule");
    try {
      Rule.checkName(name);
    } catch (InvalidPolicyException e) {
      throw ApiError.invalidField("rule", problem(e));
    }
    try {
      return limiter.rules().get(name);
    } catch (UnknownRuleException e) {
      throw new ApiError(404, ApiError.UNKNOWN_RULE, unknownRule("", name));
    }
  }

  private static String keyFromPath(Context ctx) {
    String key = ctx.pathParam("key");
    try {
      return StateKey.checkSubject(key);
    } catch (InvalidPolicyException e) {
      throw ApiError.invalidField("key", problem(e));
    }
  }

  static String unknownRule(String at, String rule) {
    return (at.isEmpty() ? "" : at + "rule: ")
        + "unknown rule '"
        + rule
        + "'; GET /v1/rules lists the rules, or send an inline policy (limit, window)";
  }

  /** The problem part of an {@link InvalidPolicyException}, without its "field: " prefix. */
  static String problem(InvalidPolicyException e) {
    String message = e.getMessage();
    String prefix = e.field() + ": ";
    return message != null && message.startsWith(prefix)
        ? message.substring(prefix.length())
        : String.valueOf(message);
  }

  /**
   * A denial beats an allowance; among denials the longer wait, among allowances the fewer left.
   */
  private static boolean moreRestrictive(Decision candidate, Decision current) {
    if (candidate.allowed() != current.allowed()) {
      return !candidate.allowed();
    }
    if (!candidate.allowed()) {
      return candidate.retryAfterNanos() > current.retryAfterNanos();
    }
    return candidate.remaining() < current.remaining();
  }

  static void respond(Context ctx, int status, Object body) {
    ctx.status(status).contentType("application/json").result(Json.write(body));
  }

  /** A validated check with the policy it runs under and its label for headers and metrics. */
  private record Resolved(Check check, Policy policy, String label) {
    DecisionBody body(Decision decision) {
      return DecisionBody.of(decision, check.rule(), policy.algorithm());
    }
  }
}
