package dev.sluice.core.stats;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The front ends of one node, each reporting what it served ({@link FrontEnd}). A front end
 * registers once when it starts listening; the console lists every registered one, merged by name
 * across nodes.
 */
public final class FrontEnds {
  private final ConcurrentHashMap<String, FrontEnd> byName = new ConcurrentHashMap<>();

  /**
   * The front end called {@code name} (e.g. {@code rest}, {@code envoy}, {@code resp}), listening
   * on {@code listensOn} (e.g. {@code 127.0.0.1:8080}); the same one on a second call.
   */
  public FrontEnd register(String name, String listensOn) {
    return byName.computeIfAbsent(name, n -> new FrontEnd(n, listensOn));
  }

  /** What each front end served so far, by name. */
  List<FrontEndTotals> totals() {
    List<FrontEndTotals> totals = new ArrayList<>();
    for (FrontEnd frontEnd : byName.values()) {
      totals.add(frontEnd.totals());
    }
    totals.sort(Comparator.comparing(FrontEndTotals::name));
    return totals;
  }
}
