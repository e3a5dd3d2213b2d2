package dev.sluice.node.resp;

import dev.sluice.core.stats.FrontEnd;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The port's metrics, beside the decisions' own ({@code sluice_decisions_total}, counted once by
 * the node's limiter):
 *
 * <ul>
 *   <li>{@code sluice_resp_commands_total{command,outcome}}: commands answered; {@code command} is
 *       the table's name ({@code cl.throttle}; {@code unknown} for any other), {@code outcome}
 *       {@code allowed} or {@code denied} for a decision, {@code ok} or {@code error} otherwise;
 *   <li>{@code sluice_resp_command_seconds{command}}: from reading a command to its answer, waits
 *       behind earlier commands of its connection included;
 *   <li>{@code sluice_resp_protocol_errors_total{reason}}: connections closed for input that is not
 *       RESP ({@code malformed}), too big ({@code too_big}) or left half-sent ({@code incomplete}),
 *       which are no commands and count nowhere else;
 *   <li>{@code sluice_resp_connections}: open connections.
 * </ul>
 *
 * Every answer is also reported to the console's front-end table ({@link FrontEnd}): an {@code
 * error} outcome as failed, any other as served.
 */
final class RespMetrics {
  private static final String COMMANDS = "sluice.resp.commands";
  private static final String LATENCY = "sluice.resp.command";
  private static final String PROTOCOL_ERRORS = "sluice.resp.protocol.errors";

  private final MeterRegistry registry;
  private final RespStats stats;
  private final FrontEnd served;
  private final ConcurrentHashMap<String, CommandMeters> commands = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> protocolErrors = new ConcurrentHashMap<>();

  /** One command's meters, found with one lookup per answer. */
  private final class CommandMeters {
    private final String command;
    private final ConcurrentHashMap<String, Counter> byOutcome = new ConcurrentHashMap<>(8);
    private final Timer latency;

    CommandMeters(String command) {
      this.command = command;
      this.latency =
          Timer.builder(LATENCY)
              .description("Time from reading a Redis protocol command to its answer")
              .tag("command", command)
              .publishPercentileHistogram()
              .register(registry);
    }

    Counter outcome(String outcome) {
      Counter counter = byOutcome.get(outcome);
      if (counter == null) {
        counter =
            byOutcome.computeIfAbsent(
                outcome,
                o ->
                    Counter.builder(COMMANDS)
                        .description("Commands answered on the Redis protocol port")
                        .tag("command", command)
                        .tag("outcome", o)
                        .register(registry));
      }
      return counter;
    }
  }

  RespMetrics(MeterRegistry registry, RespStats stats, FrontEnd served) {
    this.registry = registry;
    this.stats = stats;
    this.served = served;
    Gauge.builder("sluice.resp.connections", stats, RespStats::connectedClients)
        .description("Open connections on the Redis protocol port")
        .strongReference(true)
        .register(registry);
  }

  /** One command answered {@code outcome}, {@code nanos} after it was read. */
  void answered(String command, String outcome, long nanos) {
    stats.commandProcessed();
    CommandMeters meters = commands.get(command);
    if (meters == null) {
      meters = commands.computeIfAbsent(command, CommandMeters::new);
    }
    meters.outcome(outcome).increment();
    meters.latency.record(nanos, TimeUnit.NANOSECONDS);
    if (outcome.equals("error")) {
      served.failed(command);
    } else {
      served.served(command);
    }
  }

  void protocolError(String reason) {
    stats.protocolError();
    protocolErrors
        .computeIfAbsent(
            reason,
            k ->
                Counter.builder(PROTOCOL_ERRORS)
                    .description(
                        "Connections closed for input that is not RESP, too big or half-sent")
                    .tag("reason", reason)
                    .register(registry))
        .increment();
  }
}
