package dev.sendlog.service.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code status [--url http://127.0.0.1:8080] [--key demo-support-key] [--admin http://127.0.0.1:8081]}: prints a running
 * service's timing breakdown of the last minute per stage (the largest total is the wall) and its health checks.
 */
public final class StatusCommand extends Command {
    public StatusCommand() {
        super("status", "Prints the timing breakdown of the last minute per stage and the health of a running service");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("--url").setDefault("http://127.0.0.1:8080").help("the service's API base URL");
        subparser.addArgument("--key").setDefault("demo-support-key").help("a support or admin key");
        subparser.addArgument("--admin").setDefault("http://127.0.0.1:8081").help("the service's admin base URL");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        HttpResponse<String> pipeline = http.send(
                HttpRequest.newBuilder(URI.create(namespace.getString("url") + "/v1/admin/pipeline"))
                        .header("Authorization", "Bearer " + namespace.getString("key"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (pipeline.statusCode() != 200) {
            System.err.println("GET /v1/admin/pipeline answered " + pipeline.statusCode() + ": " + pipeline.body());
            System.exit(1);
        }
        JsonNode b = json.readTree(pipeline.body());
        System.out.printf(
                Locale.ROOT,
                "Last %d s per stage (the largest total is the wall):%n",
                b.get("windowSeconds").asInt());
        System.out.printf(
                Locale.ROOT,
                "%-24s %8s %10s %10s %10s %10s%n",
                "stage",
                "count",
                "mean ms",
                "p50 ms",
                "p99 ms",
                "total s");
        double wall = 0;
        String wallName = "-";
        for (JsonNode s : b.get("stages")) {
            System.out.printf(
                    Locale.ROOT,
                    "%-24s %8d %10.2f %10.2f %10.2f %10.1f%n",
                    s.get("name").asText(),
                    s.get("count").asLong(),
                    s.get("meanMs").asDouble(),
                    s.get("p50Ms").asDouble(),
                    s.get("p99Ms").asDouble(),
                    s.get("totalMs").asDouble() / 1000);
            boolean endToEnd = s.get("name").asText().equals("send.accepted.to.sent");
            if (!endToEnd && s.get("totalMs").asDouble() > wall) {
                wall = s.get("totalMs").asDouble();
                wallName = s.get("name").asText();
            }
        }
        System.out.println("wall: " + wallName);
        System.out.println();
        b.get("counters")
                .fields()
                .forEachRemaining(e -> System.out.printf(
                        Locale.ROOT, "%-36s %d%n", e.getKey(), e.getValue().asLong()));
        HttpResponse<String> health = http.send(
                HttpRequest.newBuilder(URI.create(namespace.getString("admin") + "/healthcheck"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        System.out.println();
        json.readTree(health.body())
                .fields()
                .forEachRemaining(e -> System.out.printf(
                        Locale.ROOT,
                        "%-18s %-9s %s%n",
                        e.getKey(),
                        e.getValue().path("healthy").asBoolean() ? "healthy" : "UNHEALTHY",
                        e.getValue().path("message").asText("")));
    }
}
