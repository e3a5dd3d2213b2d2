package dev.sluice.core.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What one front end of a node (REST, Envoy's rate limit service, the Redis protocol, ...) served,
 * by command: a front end gets one from {@link FrontEnds#register} and reports each request it
 * answers.
 *
 * <pre>{@code
 * FrontEnd resp = stats.frontEnds().register("resp", "127.0.0.1:6380");
 * resp.connections(server::openConnections);      // optional: for front ends with connections
 * resp.served("CL.THROTTLE");                     // an answer
 * resp.failed("CL.THROTTLE");                     // an error answer (bad input, the grid failed)
 * }</pre>
 *
 * A command is a short fixed name (a route, a gRPC method, a Redis command), never request data: at
 * most {@value #MAX_COMMANDS} names are kept, later ones count under {@value #OTHER}. Each report
 * is a map lookup and a striped counter increment.
 */
public final class FrontEnd {
  static final int MAX_COMMANDS = 64;
  static final String OTHER = "~other";

  private final String name;
  private final String listensOn;
  private final ConcurrentHashMap<String, LongAdder[]> commands = new ConcurrentHashMap<>();
  private volatile @Nullable LongSupplier connections;

  FrontEnd(String name, String listensOn) {
    this.name = name;
    this.listensOn = listensOn;
  }

  /** Counts a request of {@code command} answered without an error. */
  public void served(String command) {
    counters(command)[0].increment();
  }

  /** Counts a request of {@code command} answered with an error. */
  public void failed(String command) {
    LongAdder[] counters = counters(command);
    counters[0].increment();
    counters[1].increment();
  }

  /** Reports the connections open now, read at each snapshot. */
  public void connections(LongSupplier open) {
    this.connections = open;
  }

  String name() {
    return name;
  }

  FrontEndTotals totals() {
    List<CommandTotals> list = new ArrayList<>();
    for (Map.Entry<String, LongAdder[]> e : commands.entrySet()) {
      list.add(new CommandTotals(e.getKey(), e.getValue()[0].sum(), e.getValue()[1].sum()));
    }
    LongSupplier open = connections;
    return new FrontEndTotals(
        name, List.of(listensOn), open == null ? -1 : open.getAsLong(), CommandTotals.sorted(list));
  }

  private LongAdder[] counters(String command) {
    LongAdder[] counters = commands.get(command);
    if (counters != null) {
      return counters;
    }
    String kept = commands.size() < MAX_COMMANDS ? command : OTHER;
    return commands.computeIfAbsent(kept, c -> new LongAdder[] {new LongAdder(), new LongAdder()});
  }
}
