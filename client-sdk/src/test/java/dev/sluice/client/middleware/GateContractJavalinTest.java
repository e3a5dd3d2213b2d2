package dev.sluice.client.middleware;

import io.javalin.Javalin;
import java.util.Map;

/** The gate contract through {@link SluiceJavalin}'s before- and after-handlers. */
class GateContractJavalinTest extends GateContract {
  private Javalin app;

  @Override
  protected int serve(Map<String, RateLimitGate> gates) {
    app =
        Javalin.create(
                config ->
                    gates.forEach(
                        (path, gate) -> {
                          // docs/client.md: javalin-concurrency
                          config.routes.before(path, SluiceJavalin.before(gate));
                          config.routes.after(path, SluiceJavalin.after(gate));
                          // end
                          config.routes.get(
                              path,
                              ctx ->
                                  ctx.result(
                                      Application.handle(
                                          ctx.path(), SluiceJavalin.shadowBanned(ctx))));
                        }))
            .start("127.0.0.1", 0);
    return app.port();
  }

  @Override
  protected void stopServing() {
    if (app != null) {
      app.stop();
    }
  }
}
