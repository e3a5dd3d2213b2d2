package dev.sluice.example;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application docs/spring.md starts with: the starter, {@code application.yml} and {@link
 * ExampleController}. Embedded by default (the application is a grid member); with the profile
 * {@code client} ({@code application-client.yml}) a client of a grid node on 127.0.0.1:5701.
 */
@SpringBootApplication
public class ExampleApplication {
  public static void main(String[] args) {
    SpringApplication.run(ExampleApplication.class, args);
  }
}
