package dev.sluice.rest;

import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.spec.RuleSpec;
import dev.sluice.core.stats.KeyCount;
import dev.sluice.core.stats.KeySummary;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The console's data, for scripts as much as for the page: {@code GET /v1/stats} and {@code GET
 * /v1/stats/limited-keys}. Key texts need the admin token; without one they are masked ({@link
 * KeyMask}), and a wrong one is refused.
 */
final class StatsRoutes {
  static final int MAX_SECONDS = 900;
  static final int DEFAULT_TOP = 10;
  static final int MAX_TOP = 100;

  /** The label under which a node counts rules past the number it tracks. */
  private static final String OTHER_RULES = "~other";

  private final RuleStore rules;
  private final Console console;
  private final AdminAuth auth;
  private final KeyMask mask = new KeyMask();

  StatsRoutes(RuleStore rules, Console console, AdminAuth auth) {
    this.rules = rules;
    this.console = console;
    this.auth = auth;
  }

  /** {@code GET /v1/stats?seconds=900}. */
  void stats(Context ctx) {
    int seconds = intParam(ctx, "seconds", MAX_SECONDS, 1, MAX_SECONDS);
    List<RuleInfo> infos = new ArrayList<>();
    for (Rule rule : rules.all()) {
      infos.add(
          new RuleInfo(
              rule.name(),
              RuleSpec.of(rule),
              console.origin().apply(rule),
              console.failurePolicy().apply(rule.name())));
    }
    CheckRoutes.respond(
        ctx,
        200,
        new StatsBody(
            new NodeBody(console.node(), console.mode()), infos, console.view().stats(seconds)));
  }

  /** {@code GET /v1/stats/limited-keys?rule=login&top=10}. */
  void limitedKeys(Context ctx) {
    String rule = ruleParam(ctx);
    int top = intParam(ctx, "top", DEFAULT_TOP, 1, MAX_TOP);
    boolean admin = auth.isAdmin(ctx);
    List<RuleKeys> answer = new ArrayList<>();
    for (Map.Entry<String, KeySummary> entry : console.view().limitedKeys(rule).entrySet()) {
      KeySummary summary = entry.getValue().top(top);
      List<KeyCount> keys = new ArrayList<>(summary.keys().size());
      for (KeyCount key : summary.keys()) {
        keys.add(admin ? key : new KeyCount(mask.mask(key.key()), key.count(), key.error()));
      }
      answer.add(new RuleKeys(entry.getKey(), summary.total(), summary.unlistedAtMost(), keys));
    }
    CheckRoutes.respond(ctx, 200, new LimitedKeysBody(!admin, answer));
  }

  private static @Nullable String ruleParam(Context ctx) {
    String rule = ctx.queryParam("rule");
    if (rule == null || rule.isEmpty()) {
      return null;
    }
    if (rule.equals(PolicyRef.INLINE) || rule.equals(OTHER_RULES)) {
      return rule;
    }
    return Rule.checkName(rule, "rule");
  }

  private static int intParam(Context ctx, String name, int absent, int min, int max) {
    String text = ctx.queryParam(name);
    if (text == null || text.isEmpty()) {
      return absent;
    }
    try {
      int value = Integer.parseInt(text);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw ApiError.invalidField(
        name, "must be a whole number from " + min + " to " + max + ", was '" + text + "'");
  }
}
