package dev.sluice.rest;

import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.spec.RuleSpec;
import io.javalin.http.Context;
import java.util.List;
import java.util.stream.Collectors;

/** Rule management: list, read, define and delete named rules. */
final class RuleRoutes {
  private final RuleStore rules;
  private final Bodies bodies;

  RuleRoutes(RuleStore rules, Bodies bodies) {
    this.rules = rules;
    this.bodies = bodies;
  }

  /** {@code GET /v1/rules}: every rule, sorted by name. */
  void list(Context ctx) {
    List<RuleSpec> all = rules.all().stream().map(RuleSpec::of).collect(Collectors.toList());
    CheckRoutes.respond(ctx, 200, new RulesBody(all));
  }

  /** {@code GET /v1/rules/{name}}. */
  void get(Context ctx) {
    String name = nameFromPath(ctx);
    Rule rule =
        rules
            .find(name)
            .orElseThrow(
                () -> new ApiError(404, ApiError.UNKNOWN_RULE, CheckRoutes.unknownRule("", name)));
    CheckRoutes.respond(ctx, 200, RuleSpec.of(rule));
  }

  /**
   * {@code PUT /v1/rules/{name}} (admin): 201 when the rule is new, 200 when it replaced one.
   * Changing only the limit keeps the rule's counters; changing its window or algorithm starts its
   * keys afresh (see {@link RuleStore}).
   */
  void put(Context ctx) {
    String name = nameFromPath(ctx);
    RuleSpec body = bodies.read(ctx, RuleSpec.class);
    if (body.name() != null && !body.name().equals(name)) {
      throw ApiError.invalidField(
          "name", "'" + body.name() + "' does not match the rule name in the path, '" + name + "'");
    }
    Rule rule = body.toRule(name);
    boolean existed = rules.find(name).isPresent();
    rules.put(rule);
    CheckRoutes.respond(ctx, existed ? 200 : 201, RuleSpec.of(rule));
  }

  /** {@code DELETE /v1/rules/{name}} (admin): 204, or 404 if there was no such rule. */
  void delete(Context ctx) {
    String name = nameFromPath(ctx);
    if (!rules.remove(name)) {
      throw new ApiError(404, ApiError.UNKNOWN_RULE, CheckRoutes.unknownRule("", name));
    }
    ctx.status(204);
  }

  private static String nameFromPath(Context ctx) {
    return Rule.checkName(ctx.pathParam("name"));
  }
}
