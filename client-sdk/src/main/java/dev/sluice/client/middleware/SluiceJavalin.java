package dev.sluice.client.middleware;

import dev.sluice.core.headers.RateLimitHeaders.Header;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.Objects;

/**
 * Javalin handlers over a {@link RateLimitGate}: {@code config.routes.before("/login",
 * SluiceJavalin.before(gate))}. A request that does not proceed gets the gate's answer and no later
 * handler runs; one that proceeds goes on after its delay when the gate waits, marked when
 * shadow-banned. Under a concurrency rule, also register {@code config.routes.after("/login",
 * SluiceJavalin.after(gate))}: Javalin runs after-handlers whether the endpoint returned or threw,
 * and that is where the permit is given back.
 */
public final class SluiceJavalin {
  private static final String ADMISSION = SluiceJavalin.class.getName() + ".admission";

  private SluiceJavalin() {}

  public static Handler before(RateLimitGate gate) {
    return ctx -> enter(gate, ctx);
  }

  /** Gives back the permit the before-handler's admission holds, if any. */
  public static Handler after(RateLimitGate gate) {
    return ctx -> {
      if (ctx.attribute(ADMISSION) instanceof Admission admission) {
        admission.release();
      }
    };
  }

  /**
   * Whether a gate let the request of {@code ctx} through under a shadow ban: answer it as a
   * success and skip the side effect (the request attribute {@link
   * RateLimitGate#SHADOW_BANNED_ATTRIBUTE}).
   */
  public static boolean shadowBanned(Context ctx) {
    return Boolean.TRUE.equals(ctx.attribute(RateLimitGate.SHADOW_BANNED_ATTRIBUTE));
  }

  private static void enter(RateLimitGate gate, Context ctx) throws Exception {
    Admission admission = gate.enter(new ServletGateRequest(ctx.req()));
    for (Header header : admission.headers()) {
      ctx.header(header.name(), header.value());
    }
    if (!admission.proceeds()) {
      ctx.status(admission.status())
          .contentType("application/json")
          .result(Objects.requireNonNull(admission.body()));
      ctx.skipRemainingHandlers();
      return;
    }
    if (admission.shadowBanned()) {
      ctx.attribute(RateLimitGate.SHADOW_BANNED_ATTRIBUTE, Boolean.TRUE);
    }
    ctx.attribute(ADMISSION, admission);
  }
}
