package dev.sendlog.service.metrics;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code GET /metrics/prometheus} on the admin port: every Dropwizard metric in the Prometheus text format, through
 * the Prometheus project's Dropwizard bridge and its text writer (no hand-written exporter).
 */
public final class PrometheusServlet extends HttpServlet {
    private final transient PrometheusRegistry registry = new PrometheusRegistry();
    private final transient PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    public PrometheusServlet(MetricRegistry metrics) {
        DropwizardExports.builder().dropwizardRegistry(metrics).register(registry);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setStatus(200);
        response.setContentType(writer.getContentType());
        writer.write(response.getOutputStream(), registry.scrape(), EscapingScheme.UNDERSCORE_ESCAPING);
    }
}
