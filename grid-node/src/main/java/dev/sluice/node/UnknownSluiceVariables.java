package dev.sluice.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Warnings for {@code SLUICE_*} environment variables that are no setting: a typo such as {@code
 * SLUICE_ADMIN_TOKNE} would otherwise leave its setting at the default without a word. They are
 * warnings, not errors, because Kubernetes adds variables of its own for a Service whose name
 * starts with {@code sluice} ({@code SLUICE_SERVICE_HOST}, {@code SLUICE_PORT=tcp://...}, {@code
 * SLUICE_PORT_8080_TCP_ADDR}, ...); those are left alone. Values are never shown: the variable may
 * hold a secret.
 */
final class UnknownSluiceVariables {
  /** A suggestion is at most this many one-character edits away from the variable. */
  private static final int MAX_EDITS = 2;

  private static final Pattern SERVICE_LINK_NAME =
      Pattern.compile(
          "SLUICE(_[A-Z0-9_]+)?_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?"
              + "|PORT_\\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)");

  private UnknownSluiceVariables() {}

  /** One warning per unknown {@code SLUICE_*} variable, sorted by name, with a did-you-mean. */
  static List<String> warnings(Map<String, String> environment) {
    List<String> known = Setting.ENVIRONMENT_VARIABLES;
    List<String> warnings = new ArrayList<>();
    for (String name : new TreeSet<>(environment.keySet())) {
      if (!name.startsWith("SLUICE_")
          || known.contains(name)
          || isKubernetesServiceLink(name, environment.get(name))) {
        continue;
      }
      String warning = "environment variable " + name + " is not a Sluice setting and is ignored";
      String closest = null;
      int closestDistance = MAX_EDITS + 1;
      for (String candidate : known) {
        int distance = editDistance(name, candidate);
        if (distance < closestDistance) {
          closest = candidate;
          closestDistance = distance;
        }
      }
      warnings.add(closest == null ? warning : warning + "; did you mean " + closest + "?");
    }
    return warnings;
  }

  private static boolean isKubernetesServiceLink(String name, @Nullable String value) {
    if (SERVICE_LINK_NAME.matcher(name).matches()) {
      return true;
    }
    return name.endsWith("_PORT")
        && value != null
        && (value.startsWith("tcp://")
            || value.startsWith("udp://")
            || value.startsWith("sctp://"));
  }

  /**
   * Levenshtein distance: the fewest one-character insertions, deletions and substitutions that
   * turn {@code a} into {@code b}, computed row by row (two rows of {@code b.length() + 1}).
   */
  static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
