package dev.sluice.client.middleware;

import dev.sluice.core.Decision;
import io.javalin.http.Context;
import io.javalin.http.Handler;

/**
 * A Javalin before-handler: {@code config.routes.before("/login", SluiceJavalin.before(gate))}. A
 * denied request gets 429, the RateLimit headers and a JSON body, and no later handler runs.
 */
public final class SluiceJavalin {
  private SluiceJavalin() {}

  public static Handler before(RateLimitGate gate) {
    return ctx -> decide(gate, ctx);
  }

  private static void decide(RateLimitGate gate, Context ctx) {
    Decision decision = gate.decide(ctx.req());
    if (decision == null) {
      return;
    }
    gate.headers(decision).forEach(ctx::header);
    if (!decision.allowed()) {
      ctx.status(429).contentType("application/json").result(gate.errorBody(decision));
      ctx.skipRemainingHandlers();
    }
  }
}
