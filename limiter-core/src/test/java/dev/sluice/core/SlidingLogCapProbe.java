package dev.sluice.core;

import java.time.Duration;

/**
 * Run in a child JVM by {@link SlidingLogCapTest}: prints, one line each, whether sliding_log
 * policies with the limits given as arguments are accepted ({@code ok <limit>}) or refused ({@code
 * refused <field> <message>}), or the error that {@code Policy} itself failed to load with.
 */
public final class SlidingLogCapProbe {
  private SlidingLogCapProbe() {}

  public static void main(String[] args) {
    for (String arg : args) {
      long limit = Long.parseLong(arg);
      try {
        Policy.builder()
            .algorithm(Algorithm.SLIDING_LOG)
            .limit(limit)
            .window(Duration.ofMinutes(1))
            .build();
        System.out.println("ok " + limit);
      } catch (InvalidPolicyException e) {
        System.out.println("refused " + e.field() + " " + e.getMessage());
      } catch (ExceptionInInitializerError e) {
        System.out.println("failed " + e.getCause().getMessage());
        return;
      }
    }
  }
}
