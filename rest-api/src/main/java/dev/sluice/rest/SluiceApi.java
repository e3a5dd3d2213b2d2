package dev.sluice.rest;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.LimiterUnavailableException;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.ReservationException;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.metrics.DecisionMetrics;
import dev.sluice.core.stats.FrontEnd;
import dev.sluice.core.stats.NodeStats;
import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.javalin.router.Endpoint;
import io.javalin.security.RouteRole;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The REST API of docs/rest-api.md over any {@link RateLimiter}: build one, {@link #start} it, and
 * every route below is served.
 *
 * <pre>{@code
 * SluiceApi api = new SluiceApi(limiter, registry, ApiSettings.withAdminToken(token),
 *     ReadinessProbe.alwaysReady(), () -> 0);
 * api.start("127.0.0.1", 8080);
 * }</pre>
 *
 * <p>Routes read as a table in the constructor; errors map to {@code {"error", "message"}} in one
 * place ({@link #mapErrors}). A request is checked in this order, and the first failure answers:
 * route (404, 405), admin token (401, 403), content type (415), body size (413), JSON shape (400),
 * field values (400), rule exists (404); for a release, its proof (401, 403, 409, 410). Only then
 * does the limiter count or free anything.
 */
public final class SluiceApi {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceApi.class);
  private static final String START_NANOS = "sluice.startNanos";
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  private static final Set<String> TIMED_ROUTES =
      Set.of("/v1/check", "/v1/check/batch", "/v1/release", "/v1/reserve", "/v1/commit");

  /** Routes that need the admin token when one is set. */
  public enum Role implements RouteRole {
    ADMIN
  }

  private final Javalin app;
  private final Console console;
  private final boolean ownsStats;
  private volatile @Nullable FrontEnd rest;

  /**
   * @param limiter decides every check; its {@link RateLimiter#rules()} backs the rule routes
   * @param registry where the meters of docs/rest-api.md, "Metrics", live; {@code /metrics} scrapes
   *     it
   * @param settings admin token and size limits
   * @param readiness answers {@code /health/ready}
   * @param keysOwned limiter entries this node owns, for the {@code sluice_keys} gauge
   */
  public SluiceApi(
      RateLimiter limiter,
      PrometheusMeterRegistry registry,
      ApiSettings settings,
      ReadinessProbe readiness,
      LongSupplier keysOwned) {
    this(limiter, registry, settings, readiness, keysOwned, List.of(), null);
  }

  /**
   * The API with {@code extraRoutes} served beside its own (see {@link ExtraRoute}), and its
   * console ({@code GET /}, {@code GET /v1/stats...}) showing {@code console}.
   *
   * @param limiter decides every check; a limiter that records into {@code registry} already (a
   *     node's, which also counts into {@code console}'s stats) is used as it is, any other is
   *     wrapped to record into both
   * @param extraRoutes routes another module serves on this port, e.g. the Envoy front end's
   * @param console what the console shows; null: this API's own decisions alone ({@link
   *     Console#local}), kept until {@link #stop}
   */
  public SluiceApi(
      RateLimiter limiter,
      PrometheusMeterRegistry registry,
      ApiSettings settings,
      ReadinessProbe readiness,
      LongSupplier keysOwned,
      List<ExtraRoute> extraRoutes,
      @Nullable Console console) {
    List<ExtraRoute> extras = List.copyOf(extraRoutes);
    this.ownsStats = console == null;
    this.console = console != null ? console : Console.local(NodeStats.started("this node"));
    SluiceMetrics metrics = new SluiceMetrics(registry, keysOwned);
    RateLimiter metered = DecisionMetrics.record(limiter, registry, this.console.stats());
    Bodies bodies = new Bodies(settings.maxBodyBytes());
    AdminAuth auth = new AdminAuth(settings.adminToken());
    CheckRoutes checks = new CheckRoutes(metered, bodies, settings.maxBatchChecks(), auth);
    RuleRoutes rules = new RuleRoutes(limiter.rules(), bodies);
    StatsRoutes stats = new StatsRoutes(limiter.rules(), this.console, auth);
    ConsoleRoutes page = new ConsoleRoutes();
    byte[] openApi = openApiDocument();

    this.app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              config.startup.showOldJavalinVersionWarning = false;
              config.http.prefer405over404 = true;
              config.http.maxRequestSize = settings.maxBodyBytes();
              // Requests Jetty refuses before routing get our JSON error, not its HTML page.
              config.jetty.modifyServer(server -> server.setErrorHandler(new JettyErrors()));
              config
                  .routes
                  .post("/v1/check", checks::check)
                  .post("/v1/check/batch", checks::batch)
                  .post("/v1/release", checks::release)
                  .post("/v1/reserve", checks::reserve)
                  .post("/v1/commit", checks::commit)
                  .delete("/v1/limits/{rule}/{key}", checks::reset, Role.ADMIN)
                  .post("/v1/limits/peek", checks::peekBody)
                  .post("/v1/limits/reset", checks::resetBody, Role.ADMIN)
                  .put("/v1/rules/{name}", rules::put, Role.ADMIN)
                  .delete("/v1/rules/{name}", rules::delete, Role.ADMIN);
              // Reads: GET, and HEAD answering as GET does (status, content type, headers) without
              // the body (RFC 9110 §9.3.2); Javalin alone would answer HEAD with text/plain.
              Map<String, Handler> reads = new LinkedHashMap<>();
              reads.put("/", page::page);
              reads.put("/console/{asset}", page::asset);
              reads.put("/v1/stats", stats::stats);
              reads.put("/v1/stats/limited-keys", stats::limitedKeys);
              reads.put("/v1/limits/{rule}/{key}", checks::peek);
              reads.put("/v1/rules", rules::list);
              reads.put("/v1/rules/{name}", rules::get);
              reads.put("/health/live", ctx -> health(ctx, true, "live"));
              reads.put("/health/ready", ctx -> ready(ctx, readiness));
              reads.put(
                  "/metrics", ctx -> ctx.contentType(PROMETHEUS_TEXT).result(registry.scrape()));
              reads.put(
                  "/openapi.json", ctx -> ctx.contentType("application/json").result(openApi));
              reads.forEach(
                  (path, handler) -> config.routes.get(path, handler).head(path, headOf(handler)));
              for (ExtraRoute extra : extras) {
                config.routes.addHttpHandler(extra.method(), extra.path(), extra.handler());
              }
              config.routes.beforeMatched(
                  ctx -> {
                    if (ctx.routeRoles().contains(Role.ADMIN)) {
                      auth.check(ctx);
                    }
                  });
              config.routes.before(ctx -> ctx.attribute(START_NANOS, System.nanoTime()));
              config.routes.after(
                  ctx -> {
                    timeCheck(ctx, metrics);
                    countServed(ctx);
                  });
              mapErrors(config.routes);
            });
  }

  /** {@code get} for HEAD: everything it sets but the body. */
  private static Handler headOf(Handler get) {
    return ctx -> {
      get.handle(ctx);
      ctx.result(new byte[0]);
    };
  }

  /** Starts serving on {@code host:port} (port 0: any free port, see {@link #port()}). */
  public SluiceApi start(String host, int port) {
    app.start(host, port);
    rest = console.stats().frontEnds().register("rest", host + ":" + app.port());
    return this;
  }

  /** The port the server listens on, once started. */
  public int port() {
    return app.port();
  }

  /** Stops serving; in-flight requests finish first. */
  public void stop() {
    app.stop();
    if (ownsStats) {
      console.stats().close();
    }
  }

  /** The underlying Javalin app, e.g. to list its routes. */
  public Javalin javalin() {
    return app;
  }

  /** The one place where exceptions become {@code {"error", "message"}} answers. */
  private static void mapErrors(RoutesConfig routes) {
    routes.exception(ApiError.class, (e, ctx) -> error(ctx, e.status(), e.code(), e.getMessage()));
    routes.exception(
        InvalidPolicyException.class,
        (e, ctx) -> error(ctx, 400, ApiError.INVALID_FIELD, e.getMessage()));
    routes.exception(
        UnknownRuleException.class,
        (e, ctx) ->
            error(
                ctx,
                404,
                ApiError.UNKNOWN_RULE,
                CheckRoutes.unknownRule(
                    e.field().equals("rule") ? "" : e.field().substring(0, e.field().length() - 4),
                    e.rule())));
    routes.exception(
        ReservationException.class,
        (e, ctx) -> {
          switch (e.reason()) {
            case UNKNOWN -> error(ctx, 404, ApiError.RESERVATION_UNKNOWN, e.getMessage());
            case COMMITTED -> error(ctx, 409, ApiError.RESERVATION_COMMITTED, e.getMessage());
            case EXPIRED -> error(ctx, 410, ApiError.RESERVATION_EXPIRED, e.getMessage());
          }
        });
    routes.exception(
        ReleaseException.class,
        (e, ctx) -> {
          switch (e.reason()) {
            case PROOF_REQUIRED -> {
              ctx.header("WWW-Authenticate", "Bearer realm=\"sluice\"");
              error(ctx, 401, ApiError.PROOF_REQUIRED, e.getMessage());
            }
            case NOT_ISSUED_HERE ->
                error(ctx, 403, ApiError.RECEIPT_NOT_ISSUED_HERE, e.getMessage());
            case SPENT -> error(ctx, 409, ApiError.RECEIPT_SPENT, e.getMessage());
            case EXPIRED -> error(ctx, 410, ApiError.RECEIPT_EXPIRED, e.getMessage());
          }
        });
    routes.exception(
        LimiterUnavailableException.class,
        (e, ctx) -> {
          LOG.warn("grid unavailable for {} {}: {}", ctx.method(), ctx.path(), e.toString());
          // The message says why in the caller's words; the node's log has the cause.
          error(
              ctx,
              503,
              ApiError.UNAVAILABLE,
              "the grid cannot decide right now: " + e.getMessage() + "; retry");
        });
    routes.exception(HttpResponseException.class, SluiceApi::httpError);
    routes.exception(
        Exception.class,
        (e, ctx) -> {
          LOG.error("unexpected failure on {} {}", ctx.method(), ctx.path(), e);
          error(
              ctx, 500, ApiError.INTERNAL_ERROR, "an internal error occurred; see the node's log");
        });
  }

  /** Javalin's own refusals: no such route, wrong method, body too large. */
  private static void httpError(HttpResponseException e, Context ctx) {
    switch (e.getStatus()) {
      case 404 ->
          error(
              ctx,
              404,
              ApiError.NOT_FOUND,
              "no route " + ctx.method() + " " + ctx.path() + "; GET /openapi.json lists them");
      case 405 ->
          error(
              ctx,
              405,
              ApiError.METHOD_NOT_ALLOWED,
              ctx.path() + " does not accept " + ctx.method() + "; GET /openapi.json lists them");
      case 413 -> error(ctx, 413, ApiError.BODY_TOO_LARGE, "the request body is too large");
      default ->
          error(
              ctx,
              e.getStatus(),
              e.getStatus() >= 500 ? ApiError.INTERNAL_ERROR : ApiError.INVALID_FIELD,
              e.getMessage() == null ? "request refused" : e.getMessage());
    }
  }

  static void error(Context ctx, int status, String code, String message) {
    CheckRoutes.respond(ctx, status, new ErrorBody(code, message));
  }

  private static void health(Context ctx, boolean up, String detail) {
    CheckRoutes.respond(ctx, up ? 200 : 503, new HealthBody(up ? "UP" : "DOWN", detail));
  }

  private static void ready(Context ctx, ReadinessProbe probe) {
    ReadinessProbe.Readiness readiness = probe.check();
    health(ctx, readiness.ready(), readiness.detail());
  }

  private static void timeCheck(Context ctx, SluiceMetrics metrics) {
    Long start = ctx.attribute(START_NANOS);
    Endpoint endpoint = matchedEndpoint(ctx);
    if (start == null || endpoint == null || !TIMED_ROUTES.contains(endpoint.path)) {
      return;
    }
    metrics.recordCheck(endpoint.path, ctx.statusCode(), System.nanoTime() - start);
  }

  /**
   * Reports the request to the console's front-end stats under its route: an error is a 4xx other
   * than 429 (a denial is an answer) or a 5xx. Requests that match no route are not counted.
   */
  private void countServed(Context ctx) {
    FrontEnd front = rest;
    Endpoint endpoint = matchedEndpoint(ctx);
    if (front == null || endpoint == null) {
      return;
    }
    String command = endpoint.method.name() + " " + endpoint.path;
    int status = ctx.statusCode();
    if (status >= 400 && status != 429) {
      front.failed(command);
    } else {
      front.served(command);
    }
  }

  private static @Nullable Endpoint matchedEndpoint(Context ctx) {
    try {
      return ctx.endpoints().matchedHttpEndpoint();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static byte[] openApiDocument() {
    try (InputStream in = SluiceApi.class.getResourceAsStream("openapi.json")) {
      if (in == null) {
        throw new IllegalStateException("openapi.json is missing from the rest-api jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
