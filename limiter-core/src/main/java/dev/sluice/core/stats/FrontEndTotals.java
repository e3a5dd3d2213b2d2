package dev.sluice.core.stats;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a front end served, on one node or summed over several.
 *
 * @param name {@code rest}, {@code envoy}, {@code resp}, ...
 * @param listensOn where it listens, one address per node that runs it
 * @param connections connections open now, summed; -1 when the front end does not report them
 * @param commands per command, sorted by command
 */
public record FrontEndTotals(
    String name, List<String> listensOn, long connections, List<CommandTotals> commands) {

  public FrontEndTotals {
    listensOn = List.copyOf(listensOn);
    commands = List.copyOf(commands);
  }

  /** The same front end on several nodes, as one: addresses listed, counts summed. */
  static FrontEndTotals sum(String name, List<FrontEndTotals> nodes) {
    Set<String> addresses = new LinkedHashSet<>(); // "POST /json only" once, not once per node
    long connections = -1;
    Map<String, long[]> byCommand = new LinkedHashMap<>();
    for (FrontEndTotals node : nodes) {
      addresses.addAll(node.listensOn());
      if (node.connections() >= 0) {
        connections = Math.max(connections, 0) + node.connections();
      }
      for (CommandTotals command : node.commands()) {
        long[] sums = byCommand.computeIfAbsent(command.command(), c -> new long[2]);
        sums[0] += command.requests();
        sums[1] += command.errors();
      }
    }
    List<CommandTotals> commands = new ArrayList<>();
    byCommand.forEach(
        (command, sums) -> commands.add(new CommandTotals(command, sums[0], sums[1])));
    return new FrontEndTotals(
        name, List.copyOf(addresses), connections, CommandTotals.sorted(commands));
  }
}
