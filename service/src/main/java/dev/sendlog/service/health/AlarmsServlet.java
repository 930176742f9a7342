package dev.sendlog.service.health;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code GET /alarms} on the admin port, readable without a key like {@code /healthcheck}: each failure alarm with its
 * count in the last minute, its limit and whether it is raised, and {@code raised} when any is. Always 200: an alarm
 * is for a person or a monitor to act on, not a status a load balancer should route by.
 */
public final class AlarmsServlet extends HttpServlet {
    private final transient FailureRates rates;
    private final transient ObjectMapper json;

    public AlarmsServlet(FailureRates rates, ObjectMapper json) {
        this.rates = rates;
        this.json = json;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Map<String, FailureRates.Alarm> alarms = rates.alarms();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("raised", alarms.values().stream().anyMatch(FailureRates.Alarm::raised));
        body.put("windowSeconds", FailureRates.WINDOW.toSeconds());
        body.put("alarms", alarms);
        byte[] bytes = json.writeValueAsBytes(body);
        response.setStatus(200);
        response.setContentType("application/json");
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
