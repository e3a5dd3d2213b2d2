package dev.sluice.node.envoy;

import dev.sluice.core.RateLimiter;
import dev.sluice.core.TimeSource;
import dev.sluice.core.headers.RateLimitHeaders.Family;
import dev.sluice.core.stats.FrontEnd;
import dev.sluice.core.stats.FrontEnds;
import dev.sluice.rest.ExtraRoute;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The grid node's Envoy rate limit service (docs/envoy.md): a drop-in for envoyproxy/ratelimit
 * whose counting is Sluice's. It is read in two steps, because a broken config must stop a node
 * before its member joins anything:
 *
 * <pre>{@code
 * EnvoyFrontEnd envoy = EnvoyFrontEnd.load(configPath, reloadInterval);   // reads the config
 * ... start the member and the limiter ...
 * envoy.start(limiter, registry, clock, options, frontEnds); // gRPC, watcher, metrics
 * new SluiceApi(..., List.of(envoy.jsonRoute()), console); // POST /json on the REST port
 * envoy.close();                                      // before the REST API and the member stop
 * }</pre>
 *
 * Where to read on: {@link ShouldRateLimit} (the answer, step by step), {@link EnvoyConfig} (how a
 * descriptor finds its limit), {@link EnvoyConfigLoader} (what a config file may say), {@link
 * SluiceCounting} (the one place that meets Sluice's core).
 */
public final class EnvoyFrontEnd implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EnvoyFrontEnd.class);

  /**
   * How the service answers.
   *
   * @param host the address the gRPC server binds to
   * @param rlsPort its port; 0: no gRPC server (POST /json is still served)
   * @param shadowMode answer OK even when a limit is over (the peer's global SHADOW_MODE)
   * @param headers the header families added to Envoy's response
   */
  public record Options(String host, int rlsPort, boolean shadowMode, Set<Family> headers) {}

  private final @Nullable EnvoyConfigWatcher watcher;
  private @Nullable ShouldRateLimit decider;
  private @Nullable RlsServer server;
  private @Nullable FrontEnd served;

  private EnvoyFrontEnd(@Nullable EnvoyConfigWatcher watcher) {
    this.watcher = watcher;
  }

  /**
   * Reads the Envoy config at {@code config} (a file or a directory), or none.
   *
   * @throws dev.sluice.core.config.ConfigFileException naming the file, line and field if it is
   *     missing or broken
   */
  public static EnvoyFrontEnd load(@Nullable Path config, Duration reloadInterval) {
    if (config == null) {
      return new EnvoyFrontEnd(null);
    }
    EnvoyConfigWatcher watcher = new EnvoyConfigWatcher(config, reloadInterval);
    EnvoyConfig loaded = watcher.loadInitial();
    LOG.info(
        "Envoy config {}: {} domains {}, reloaded on change",
        config,
        loaded.domains().size(),
        loaded.domains());
    return new EnvoyFrontEnd(watcher);
  }

  /**
   * Starts answering: counts through {@code limiter}, reports on {@code registry} and to the
   * console's {@code frontEnds} (front end {@code envoy}, under {@code ShouldRateLimit} for gRPC
   * and {@code POST /json}), serves gRPC when {@code options.rlsPort()} is not 0, and watches the
   * config.
   *
   * @throws java.io.UncheckedIOException if the gRPC port cannot be bound (caused by a {@code
   *     BindException} when it is taken)
   */
  public EnvoyFrontEnd start(
      RateLimiter limiter,
      MeterRegistry registry,
      TimeSource clock,
      Options options,
      FrontEnds frontEnds) {
    EnvoyMetrics metrics = new EnvoyMetrics(registry);
    EnvoyConfigWatcher watching = watcher;
    Supplier<EnvoyConfig> config = watching == null ? () -> EnvoyConfig.EMPTY : watching::current;
    SluiceCounting counting = new SluiceCounting(limiter, config);
    counting.define(config.get());
    ShouldRateLimit answers =
        new ShouldRateLimit(
            config, counting, metrics, options.headers(), options.shadowMode(), clock::nowNanos);
    this.decider = answers;
    if (watching != null) {
      metrics.configLoaded(true);
      watching.start(metrics::configLoaded, counting::define);
    } else {
      LOG.warn(
          "no Envoy config (envoyConfig, SLUICE_ENVOY_CONFIG): every rate limit request is"
              + " answered OK");
    }
    FrontEnd served =
        frontEnds.register(
            "envoy",
            options.rlsPort() == 0 ? "POST /json only" : options.host() + ":" + options.rlsPort());
    this.served = served;
    if (options.rlsPort() != 0) {
      server =
          RlsServer.start(
              options.host(), options.rlsPort(), new RlsService(answers, metrics, served));
      LOG.info(
          "Envoy rate limit service (gRPC) on {}:{}{}",
          options.host(),
          server.port(),
          options.shadowMode() ? ", in shadow mode: every answer is OK" : "");
    }
    return this;
  }

  /** {@code POST /json} for the REST port; call after {@link #start}. */
  public ExtraRoute jsonRoute() {
    ShouldRateLimit answers = decider;
    FrontEnd reporting = served;
    if (answers == null || reporting == null) {
      throw new IllegalStateException("start the Envoy front end before asking for its route");
    }
    return JsonRoute.of(answers, reporting);
  }

  /** The gRPC port, or 0 when it is off. */
  public int rlsPort() {
    RlsServer running = server;
    return running == null ? 0 : running.port();
  }

  /** Stops watching and stops the gRPC server gracefully (calls in flight finish). */
  @Override
  public void close() {
    if (watcher != null) {
      watcher.close();
    }
    RlsServer running = server;
    if (running != null) {
      server = null;
      running.close();
    }
  }
}
