package dev.sluice.example;

import dev.sluice.client.middleware.SluiceFilter;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The endpoints the gates of {@code application.yml} limit: {@code /hello}, 3 a minute per client
 * address, and {@code /invites}, 2 a day per user and then a shadow ban, Figma's "stopping spam
 * without telling the spammer" (docs/shadow-ban.md).
 */
@RestController
public class ExampleController {
  private final Mailer mailer;

  public ExampleController(Mailer mailer) {
    this.mailer = mailer;
  }

  // docs/spring.md: hello
  @GetMapping("/hello")
  String hello() {
    return "hello";
  }

  // end

  // docs/spring.md: invites
  @PostMapping("/invites")
  Map<String, String> invite(HttpServletRequest request, @RequestParam String email) {
    if (!SluiceFilter.shadowBanned(request)) {
      mailer.send(email); // the side effect; a banned spammer's invitation is not sent
    }
    return Map.of("status", "invited"); // the same answer either way
  }

  // end

  @GetMapping("/invites/sent")
  List<String> sent() {
    return mailer.sent();
  }
}
