package dev.sluice.core.stats;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Requests of one command a front end answered, since the node started.
 *
 * @param command the route, gRPC method or protocol command, e.g. {@code POST /v1/check}
 * @param requests every answer, errors included
 * @param errors answers that were errors (bad input, the grid unavailable)
 */
public record CommandTotals(String command, long requests, long errors) {

  static List<CommandTotals> sorted(List<CommandTotals> commands) {
    List<CommandTotals> copy = new ArrayList<>(commands);
    copy.sort(Comparator.comparing(CommandTotals::command));
    return copy;
  }
}
