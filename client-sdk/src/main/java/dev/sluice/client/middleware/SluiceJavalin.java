package dev.sluice.client.middleware;

import dev.sluice.core.Decision;
import io.javalin.http.Context;
import io.javalin.http.Handler;

/**
 * A Javalin before-handler: {@code config.routes.before("/login", SluiceJavalin.before(gate))}. A
 * denied request gets 429, the RateLimit headers and a JSON body, and no later handler runs; an
 * admitted one goes on after its delay when the gate waits. Under a concurrency rule, also register
 * {@code config.routes.after("/login", SluiceJavalin.after(gate))}: Javalin runs after-handlers
 * whether the endpoint returned or threw, and that is where the permit is given back.
 */
public final class SluiceJavalin {
  private static final String ADMISSION = SluiceJavalin.class.getName() + ".admission";

  private SluiceJavalin() {}

  public static Handler before(RateLimitGate gate) {
    return ctx -> decide(gate, ctx);
  }

  /** Gives back the permit the before-handler's admission holds, if any. */
  public static Handler after(RateLimitGate gate) {
    return ctx -> {
      if (ctx.attribute(ADMISSION) instanceof Admission admission) {
        admission.release();
      }
    };
  }

  private static void decide(RateLimitGate gate, Context ctx) throws Exception {
    Admission admission = gate.enter(ctx.req());
    if (admission == null) {
      return;
    }
    Decision decision = admission.decision();
    gate.headers(decision).forEach(ctx::header);
    if (!decision.allowed()) {
      ctx.status(429).contentType("application/json").result(gate.errorBody(decision));
      ctx.skipRemainingHandlers();
      return;
    }
    ctx.attribute(ADMISSION, admission);
  }
}
