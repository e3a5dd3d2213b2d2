package dev.sluice.bench.load;

import java.io.File;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Library versions as they are on this run's classpath (read from the jar names). */
final class Versions {
  private Versions() {}

  static String of(String artifactId) {
    Pattern jar = Pattern.compile(Pattern.quote(artifactId) + "-(\\d[^/]*?)\\.jar$");
    for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
      Matcher m = jar.matcher(entry.replace('\\', '/'));
      if (m.find() && entry.replace('\\', '/').contains("/" + artifactId + "-")) {
        return m.group(1);
      }
    }
    return "?";
  }
}
