package dev.sendlog.service.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.events.Compacted;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageDetails;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import dev.sendlog.testkit.LogFixtures;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The support console in real headless Chromium (Debian's chromium and chromium-driver) against the real
 * service: sign-in, search, the timeline (with what compaction folded), the DEAD list and an admin's re-drive,
 * parked input and its resolution, a tenant's suppression list (an admin adds and removes, support reads), and
 * problem+json errors shown to the user.
 */
class ConsoleBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final SimulatorConfig NORMAL = SimulatorConfig.defaults().toBuilder()
            .latencyMs(5)
            .receiptMode(ReceiptMode.NONE)
            .build();

    /** Checked before the service starts, so a machine without Chromium fails (or skips) at once. */
    @RegisterExtension
    @Order(1)
    static final Chromium CHROME = new Chromium();

    @RegisterExtension
    @Order(2)
    static final ServiceHarness SERVICE = new ServiceHarness();

    private WebDriver browser;
    private WebDriverWait wait;
    private Path profile;

    @BeforeEach
    void openBrowser() throws IOException {
        profile = Files.createTempDirectory("sendlog-console-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-quic",
                "--no-first-run",
                "--disable-dev-shm-usage",
                "--window-size=1400,1000",
                "--user-data-dir=" + profile);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService driver = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .withLogFile(new File("target/chromedriver.log"))
                .build();
        browser = new ChromeDriver(driver, options);
        wait = new WebDriverWait(browser, WAIT);
    }

    @AfterEach
    void closeBrowser() throws IOException {
        SERVICE.simulator().updateConfig(NORMAL);
        try {
            if (browser != null) {
                assertThat(pageErrors()).as("errors in the browser console").isEmpty();
            }
        } finally {
            if (browser != null) {
                browser.quit();
            }
            deleteTree(profile);
        }
    }

    @Test
    void supportSignsInFindsAMessageByRecipientAndFollowsItsTimelineToTheProvider() {
        String to = Messages.recipient();
        String id = Messages.submitOne(SERVICE, to);

        signIn("support-1", "support");
        assertThat(texts(By.cssSelector("#tenant-list option"), e -> e.getAttribute("value")))
                .as("the tenant picker: the tenants that hold a client key")
                .containsExactly("acme", "globex", "suspended");
        assertThat(browser.findElement(By.id("search-tenant")).getAttribute("list"))
                .isEqualTo("tenant-list");
        type("search-to", to);
        click(By.id("search-submit"));
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", id)));
        assertThat(row.getText()).contains(to, "acme");
        row.findElement(By.cssSelector("[data-test=open]")).click();

        // The page reads the message again while it is moving (ACCEPTED, SENDING), until the provider took it.
        wait.until(d -> field("status").equals("SENT"));
        wait.until(d -> eventTypes().contains("PROVIDER_ACCEPTED"));
        assertThat(eventTypes()).first().isEqualTo("ACCEPTED");
        assertThat(eventTypes()).containsSubsequence("ACCEPTED", "CLAIMED", "PROVIDER_ACCEPTED");
        assertThat(field("id")).isEqualTo(id);
        assertThat(field("to")).isEqualTo(to);
        assertThat(field("tenant")).isEqualTo("acme");
        assertThat(field("from")).as("the tenant's default sender id").isEqualTo("Acme");
        assertThat(field("attempts")).isEqualTo("1");
        assertThat(field("segments")).as("the units it is charged").isEqualTo("1");
        assertThat(field("providerId")).isNotEqualTo("—");
        assertThat(browser.findElements(By.cssSelector("[data-test=redrive]"))).isEmpty();

        // The history reads as sentences, each with the time since the step before; the raw data one click away.
        assertThat(sentence("ACCEPTED"))
                .isEqualTo("Accepted for tenant acme, to go out through " + field("gateway") + ".");
        assertThat(sentence("PROVIDER_ACCEPTED"))
                .startsWith("Provider " + field("gateway") + " accepted it as " + field("providerId") + ", ")
                .endsWith(" after the claim.");
        assertThat(sentence("CLAIMED")).startsWith("Worker ").contains("took attempt 1");
        WebElement accepted = event("PROVIDER_ACCEPTED");
        assertThat(accepted.findElement(By.cssSelector("[data-test=since]")).getText())
                .matches("\\+[0-9.]+ (ms|s)");
        assertThat(accepted.findElement(By.tagName("time")).getAttribute("title"))
                .endsWith("Z (UTC)");
        WebElement raw = accepted.findElement(By.cssSelector("details.raw pre"));
        assertThat(raw.isDisplayed()).as("the raw data is folded away").isFalse();
        accepted.findElement(By.cssSelector("details.raw summary")).click();
        wait.until(d -> raw.isDisplayed());
        assertThat(raw.getText()).contains("\"providerId\": \"" + field("providerId") + "\"");

        // The whole life as one bar: a segment between each two events, and how long it all took.
        int events = eventTypes().size();
        assertThat(browser.findElements(By.cssSelector("#lifebar [data-test=segment]")))
                .hasSize(events - 1);
        assertThat(browser.findElement(By.cssSelector("#lifebar [data-test=life]"))
                        .getText())
                .startsWith(events + " events over ");
        assertThat(browser.findElement(By.cssSelector("#lifebar [data-test=segment]"))
                        .getAttribute("title"))
                .startsWith("ACCEPTED to ");
        // The id copied to the clipboard, or selected for the user's own copy where the browser refuses.
        click(By.id("message-copy"));
        wait.until(d -> text("notice").equals("Copied " + id) || text("notice").startsWith("The id is selected"));
    }

    /**
     * Keyboard and screen-reader basics, in a phone-sized window: every form control has a name, the tabs move with
     * the arrow keys, an opened message takes the focus to its heading, and no view is wider than the window (tables
     * scroll on their own).
     */
    /**
     * Issue 31: staff open on the pipeline view; a known load (N messages, each with a DELIVRD receipt) shows as N
     * accepted and N delivered more in the charts' own data, for the tenant and the gateway too; the charts are drawn
     * (pixels on their canvases); every stage, the health checks and the alarms are listed.
     */
    @Test
    void thePipelineViewShowsAKnownLoadInItsTablesAndCharts() {
        signInAt(SERVICE.api().baseUrl() + "/console/", "support-1", "support");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("pipeline-stages")));
        org.openqa.selenium.JavascriptExecutor js = (org.openqa.selenium.JavascriptExecutor) browser;
        wait.until(d -> chartSum(js, "chart-throughput", 4) >= 0);
        long acceptedBefore = chartSum(js, "chart-throughput", 1);
        long deliveredBefore = chartSum(js, "chart-throughput", 4);
        long tenantDeliveredBefore = overviewCount(js, "tenants", "acme", "DELIVERED");

        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder()
                        .receiptMode(ReceiptMode.FINAL)
                        .undeliveredRate(0)
                        .build());
        int n = 25;
        List<String> ids = Messages.submit(SERVICE, n);
        for (String id : ids) {
            Messages.awaitStatus(SERVICE, id, "DELIVERED", WAIT);
        }
        // The console reads again every 5 s; the processes send their counts every 2 s.
        new WebDriverWait(browser, Duration.ofSeconds(60))
                .withMessage(() -> "the pipeline view's data: "
                        + js.executeScript("return JSON.stringify(window.sendlogConsole.pipeline());"))
                .until(d -> chartSum(js, "chart-throughput", 4) - deliveredBefore >= n
                        && chartSum(js, "chart-throughput", 1) - acceptedBefore >= n);
        assertThat(chartSum(js, "chart-throughput", 1) - acceptedBefore)
                .as("accepted, in the throughput chart's data")
                .isEqualTo(n);
        assertThat(chartSum(js, "chart-throughput", 4) - deliveredBefore)
                .as("delivered, in the throughput chart's data")
                .isEqualTo(n);
        assertThat(chartSum(js, "chart-throughput", 3)).as("sent").isGreaterThanOrEqualTo(n);
        assertThat(overviewCount(js, "tenants", "acme", "DELIVERED") - tenantDeliveredBefore)
                .as("the tenant's delivered count")
                .isEqualTo(n);
        assertThat(browser.findElement(By.cssSelector("[data-test=gateway][data-name=sim] [data-count=DELIVERED]"))
                        .getText()
                        .replaceAll("[^0-9]", ""))
                .as("the gateway's row")
                .isNotEmpty();
        assertThat(texts(By.cssSelector("[data-test=stage]"), e -> e.getAttribute("data-stage")))
                .containsExactly(
                        "accepted", "send-stream", "at-provider", "awaiting-receipt", "callbacks", "webhooks-owed");
        assertThat(texts(By.cssSelector("[data-test=check]"), e -> e.getAttribute("data-check")))
                .contains("database", "pollers", "redis-send", "workers-send");
        assertThat(texts(By.cssSelector("[data-test=alarm]"), e -> e.getAttribute("data-alarm")))
                .isNotEmpty();
        for (String chart : List.of("chart-throughput", "chart-latency", "chart-failures")) {
            assertThat((Boolean) js.executeScript("""
                            const canvas = document.querySelector('#' + arguments[0] + ' canvas');
                            if (!canvas || canvas.width === 0 || canvas.height === 0) { return false; }
                            const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
                            for (let i = 3; i < pixels.length; i += 4) { if (pixels[i] !== 0) { return true; } }
                            return false;""", chart))
                    .as("%s is drawn", chart)
                    .isTrue();
        }
        List<?> latency = (List<?>) js.executeScript(
                "return window.sendlogConsole.pipeline().charts['chart-latency'][3].filter(v => v !== null);");
        assertThat(latency)
                .as("the provider call's p99 of the minutes with calls")
                .isNotEmpty();
    }

    /** The sum of a chart's series (1 = its first line) as uPlot holds it. */
    private static long chartSum(org.openqa.selenium.JavascriptExecutor js, String chart, int series) {
        Object sum = js.executeScript(
                "const p = window.sendlogConsole && window.sendlogConsole.pipeline();"
                        + "const c = p && p.charts[arguments[0]];"
                        + "return c ? c[arguments[1]].reduce((a, v) => a + (v || 0), 0) : -1;",
                chart,
                series);
        return ((Number) sum).longValue();
    }

    private static long overviewCount(
            org.openqa.selenium.JavascriptExecutor js, String table, String name, String kind) {
        Object n = js.executeScript(
                "const d = window.sendlogConsole.pipeline().data;"
                        + "return d && d[arguments[0]][arguments[1]] ? d[arguments[0]][arguments[1]][arguments[2]] : 0;",
                table,
                name,
                kind);
        return ((Number) n).longValue();
    }

    @Test
    void aNarrowWindowAndTheKeyboardReachEverything() {
        String to = Messages.recipient();
        String id = Messages.submitOne(SERVICE, to);
        Messages.awaitStatus(SERVICE, id, "SENT", WAIT);
        browser.manage().window().setSize(new org.openqa.selenium.Dimension(390, 844));
        signIn("admin-1", "admin");
        org.openqa.selenium.JavascriptExecutor js = (org.openqa.selenium.JavascriptExecutor) browser;
        assertThat((List<?>) js.executeScript("return [...document.querySelectorAll('input, select, textarea')]"
                        + ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))"
                        + ".map(e => e.id || e.outerHTML);"))
                .as("form controls without a label")
                .isEmpty();

        browser.findElement(By.id("tab-search")).sendKeys(org.openqa.selenium.Keys.ARROW_RIGHT);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("view-dead")));
        assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("tab-dead");
        assertThat(browser.findElement(By.id("tab-dead")).getAttribute("aria-selected"))
                .isEqualTo("true");
        browser.switchTo().activeElement().sendKeys(org.openqa.selenium.Keys.HOME);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("view-pipeline")));
        wait.until(
                d -> !d.findElements(By.cssSelector("#chart-throughput canvas")).isEmpty());
        assertThat(notWiderThanTheWindow(js))
                .as("the pipeline view and its charts fit the window")
                .isTrue();
        browser.switchTo().activeElement().sendKeys(org.openqa.selenium.Keys.ARROW_RIGHT);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("search-form")));

        type("search-to", to);
        click(By.id("search-submit"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", id)));
        assertThat(notWiderThanTheWindow(js))
                .as("the search results fit the window")
                .isTrue();
        browser.findElement(row("result-row", id))
                .findElement(By.cssSelector("[data-test=open]"))
                .click();
        wait.until(d -> field("id").equals(id));
        assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("message-heading");
        wait.until(d -> eventTypes().contains("PROVIDER_ACCEPTED"));
        assertThat(notWiderThanTheWindow(js)).as("the message fits the window").isTrue();
    }

    private static boolean notWiderThanTheWindow(org.openqa.selenium.JavascriptExecutor js) {
        return (Boolean) js.executeScript("return document.documentElement.scrollWidth <= window.innerWidth;");
    }

    /** A search and a message are links: the address keeps the filters and the open message, and opens them again. */
    @Test
    void aSearchAndAMessageAreSharedAsLinks() {
        String to = Messages.recipient();
        String id = Messages.submitOne(SERVICE, to);
        Messages.awaitStatus(SERVICE, id, "SENT", WAIT);

        signIn("support-1", "support");
        type("search-to", to);
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("search-status")))
                .selectByVisibleText("SENT");
        click(By.id("search-submit"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", id)))
                .findElement(By.cssSelector("[data-test=open]"))
                .click();
        wait.until(d -> field("id").equals(id));
        String messageLink = browser.getCurrentUrl();
        assertThat(messageLink).endsWith("/console/#message/" + id);
        click(By.id("message-back"));
        String searchLink = browser.getCurrentUrl();
        assertThat(searchLink).contains("/console/#search?").contains("to=%2B").contains("status=SENT");
        signOut();
        assertThat(browser.getCurrentUrl()).as("signing out forgets the view").doesNotContain("#");

        // Someone else opens the links and signs in: the same search, filled in and run; the same message.
        signInAt(searchLink, "support-1", "support");
        wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", id)));
        assertThat(browser.findElement(By.id("search-to")).getAttribute("value"))
                .isEqualTo(to);
        assertThat(browser.findElement(By.id("search-status")).getAttribute("value"))
                .isEqualTo("SENT");
        signOut();
        signInAt(messageLink, "support-1", "support");
        wait.until(d -> field("id").equals(id));
        assertThat(eventTypes()).contains("PROVIDER_ACCEPTED");
    }

    /**
     * Every event type has its sentence: the console's own wording of one event of each type, as the API shapes them
     * (docs/api.md), none left as a bare type name or with a field it failed to read.
     */
    @Test
    void everyEventTypeReadsAsASentence() {
        signIn("support-1", "support");
        Map<String, String> expected = new java.util.LinkedHashMap<>();
        expected.put(
                "{\"type\":\"ACCEPTED\",\"data\":{\"tenant\":\"acme\",\"gateway\":\"sim\"}}",
                "Accepted for tenant acme, to go out through sim.");
        expected.put(
                "{\"type\":\"SCHEDULED\",\"data\":{\"sendAt\":\"2026-12-24T08:00:00Z\"}}",
                "Scheduled: it waits until ");
        expected.put("{\"type\":\"PUBLISHED\",\"data\":{\"attempt\":2}}", "Handed to the send queue for attempt 2.");
        expected.put(
                "{\"type\":\"CLAIMED\",\"data\":{\"attempt\":1,\"worker\":\"send-worker-1\"}}",
                "Worker send-worker-1 took attempt 1.");
        expected.put(
                "{\"type\":\"PROVIDER_ACCEPTED\",\"data\":{\"attempt\":1,\"gateway\":\"smsc\",\"providerId\":\"p2\","
                        + "\"part\":2,\"parts\":3}}",
                "Provider smsc accepted it as p2 (part 2 of 3).");
        expected.put(
                "{\"type\":\"ATTEMPT_FAILED\",\"data\":{\"attempt\":1,\"error\":\"HTTP 503\","
                        + "\"nextAttemptAt\":\"2026-12-24T08:00:00Z\"}}",
                "Attempt 1 failed: HTTP 503; next try at ");
        expected.put(
                "{\"type\":\"REJECTED\",\"data\":{\"stage\":\"suppression\",\"reason\":\"suppressed\"}}",
                "Rejected at the suppression stage: suppressed.");
        expected.put(
                "{\"type\":\"REDRIVEN\",\"data\":{\"attempt\":2,\"reason\":\"CLAIM_TIMEOUT\"}}",
                "Sent again as attempt 2: the worker that claimed it did not finish by its deadline.");
        expected.put(
                "{\"type\":\"REDRIVEN\",\"data\":{\"attempt\":1,\"reason\":\"FAILED_OVER\",\"gateway\":\"sim2\","
                        + "\"error\":\"connection refused\"}}",
                "Moved to gateway sim2, because the one before certainly did not take it: connection refused.");
        expected.put(
                "{\"type\":\"DEAD\",\"data\":{\"attempts\":5,\"reason\":\"retries exhausted\"}}",
                "Dead after 5 attempts: retries exhausted.");
        expected.put(
                "{\"type\":\"RECEIPT\",\"data\":{\"kind\":\"DELIVERED\",\"gateway\":\"sim\",\"providerId\":\"p2\","
                        + "\"providerStatus\":\"DELIVRD\",\"providerTimestamp\":\"2026-12-24T08:03:00Z\"}}",
                "Receipt DELIVRD (DELIVERED) from sim, from a callback; provider time ");
        expected.put(
                "{\"type\":\"RECEIPT\",\"data\":{\"kind\":\"UNDELIVERED\",\"gateway\":\"sim\",\"providerId\":\"p2\","
                        + "\"providerStatus\":\"UNDELIV\",\"providerTimestamp\":\"2026-12-24T08:03:00Z\",\"source\":\"QUERY\"}}",
                "Receipt UNDELIV (UNDELIVERED) from sim, learned by asking its status query; provider time ");
        expected.put(
                "{\"type\":\"OUTCOME_UNKNOWN\",\"data\":{\"reason\":\"no receipt within the window\"}}",
                "Outcome unknown: no receipt within the window. Not failed");
        expected.put(
                "{\"type\":\"RESOLVED\",\"data\":{\"parkedId\":7,\"action\":\"apply\",\"status\":\"DELIVERED\"}}",
                "Support applied DELIVERED from parked input #7.");
        expected.put(
                "{\"type\":\"RESOLVED\",\"data\":{\"parkedId\":8,\"action\":\"discard\",\"note\":\"spam\"}}",
                "Support discarded parked input #8: spam.");
        expected.put("{\"type\":\"EXPIRED\",\"data\":{}}", "Expired before a worker could send it");
        expected.put("{\"type\":\"CANCELLED\",\"data\":{}}", "Cancelled by the caller before a worker claimed it");
        expected.put("{\"type\":\"COMPACTED\",\"data\":{\"events\":[{},{}]}}", "Compaction folded 2 older events");
        java.util.Set<String> types = new java.util.HashSet<>();
        expected.forEach((event, words) -> {
            String said = (String) ((org.openqa.selenium.JavascriptExecutor) browser)
                    .executeScript("return window.sendlogConsole.sentence(JSON.parse(arguments[0]));", event);
            assertThat(said).as(event).startsWith(words).doesNotContain("undefined", "null", "NaN", "—");
            types.add(event.substring(9, event.indexOf('"', 9)));
        });
        assertThat(types)
                .as("every type of docs/api.md")
                .containsExactlyInAnyOrder(
                        "ACCEPTED",
                        "SCHEDULED",
                        "PUBLISHED",
                        "CLAIMED",
                        "PROVIDER_ACCEPTED",
                        "ATTEMPT_FAILED",
                        "REJECTED",
                        "REDRIVEN",
                        "DEAD",
                        "RECEIPT",
                        "OUTCOME_UNKNOWN",
                        "RESOLVED",
                        "EXPIRED",
                        "CANCELLED",
                        "COMPACTED");
    }

    /**
     * Searches by recipient with the status filter set to {@code status}, checks the message's row shows it, opens the
     * message and waits for its page to show that status.
     */
    private void openFoundByRecipientAndStatus(String to, String status, String id) {
        type("search-to", to);
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("search-status")))
                .selectByVisibleText(status);
        click(By.id("search-submit"));
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", id)));
        assertThat(row.getText()).contains(status);
        row.findElement(By.cssSelector("[data-test=open]")).click();
        wait.until(d -> field("status").equals(status));
    }

    /**
     * Scheduled send (issue 26): the status filter finds a SCHEDULED message, the page shows the status and its sendAt
     * and a timeline of ACCEPTED then SCHEDULED; support gets no Cancel button, an admin cancels it.
     */
    @Test
    void aScheduledMessageShowsItsStatusAndSendAtAndAnAdminCancelsIt() {
        String to = Messages.recipient();
        java.time.Instant sendAt = SERVICE.now().plusSeconds(3600).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        String id = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"later\",\"sendAt\":\"" + sendAt + "\"}")
                .json()
                .get("id")
                .asText();

        signIn("support-1", "support");
        openFoundByRecipientAndStatus(to, "SCHEDULED", id);
        assertThat(java.time.Instant.parse(fieldTime("sendAt"))).isEqualTo(sendAt);
        wait.until(d -> eventTypes().equals(List.of("ACCEPTED", "SCHEDULED")));
        assertThat(browser.findElements(By.cssSelector("[data-test=cancel]")))
                .as("support does not cancel")
                .isEmpty();
        signOut();

        signIn("admin-1", "admin");
        type("search-to", to);
        click(By.id("search-submit"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", id)))
                .findElement(By.cssSelector("[data-test=open]"))
                .click();
        wait.until(d -> field("status").equals("SCHEDULED"));
        click(By.cssSelector("[data-test=cancel]"));
        wait.until(d -> field("status").equals("CANCELLED"));
        wait.until(d -> eventTypes().equals(List.of("ACCEPTED", "SCHEDULED", "CANCELLED")));
    }

    /**
     * Issue 26: a scheduled message whose validity ends before its time expires unsent; support finds it by the EXPIRED
     * filter and its page shows the status, the validity and the events that ended it.
     */
    @Test
    void aMessageThatExpiredBeforeItsTimeIsFoundAsExpiredWithItsValidityShown() {
        String to = Messages.recipient();
        java.time.Instant now = SERVICE.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        java.time.Instant validUntil = now.plusSeconds(3600);
        String id = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"too late\",\"sendAt\":\"" + now.plusSeconds(7200)
                                + "\",\"validUntil\":\"" + validUntil + "\"}")
                .json()
                .get("id")
                .asText();
        SERVICE.clock().advance(java.time.Duration.ofMinutes(61));
        Messages.awaitStatus(SERVICE, id, "EXPIRED", java.time.Duration.ofSeconds(30));

        signIn("support-1", "support");
        openFoundByRecipientAndStatus(to, "EXPIRED", id);
        assertThat(java.time.Instant.parse(fieldTime("validUntil"))).isEqualTo(validUntil);
        wait.until(d -> eventTypes().equals(List.of("ACCEPTED", "SCHEDULED", "EXPIRED")));
        assertThat(browser.findElements(By.cssSelector("[data-test=cancel]")))
                .as("nothing left to cancel")
                .isEmpty();
        signOut();
    }

    /**
     * Issue 26: a tenant's own client key signs in to its view: the staff lists are not shown, a search finds its own
     * messages and never another tenant's, and it cancels its scheduled message from the message's page.
     */
    @Test
    void aClientSeesOnlyItsOwnMessagesAndCancelsItsScheduledOne() {
        String to = Messages.recipient();
        java.time.Instant sendAt = SERVICE.now().plusSeconds(3600).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        String own = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"mine\",\"sendAt\":\"" + sendAt + "\"}")
                .json()
                .get("id")
                .asText();
        String other = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-b",
                        "{\"to\":\"" + to + "\",\"body\":\"theirs\",\"sendAt\":\"" + sendAt + "\"}")
                .json()
                .get("id")
                .asText();

        signIn("client-a", "client");
        for (String tab : List.of("tab-dead", "tab-parked", "tab-webhooks", "tab-suppressions")) {
            assertThat(browser.findElement(By.id(tab)).isDisplayed())
                    .as(tab + " is for staff")
                    .isFalse();
        }
        type("search-to", to);
        click(By.id("search-submit"));
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", own)));
        assertThat(browser.findElements(row("result-row", other)))
                .as("another tenant's message")
                .isEmpty();
        row.findElement(By.cssSelector("[data-test=open]")).click();
        wait.until(d -> field("status").equals("SCHEDULED"));
        click(By.cssSelector("[data-test=cancel]"));
        wait.until(d -> field("status").equals("CANCELLED"));
        wait.until(d -> eventTypes().equals(List.of("ACCEPTED", "SCHEDULED", "CANCELLED")));
        assertThat(SERVICE.api()
                        .get("/v1/messages/" + other, "client-b")
                        .json()
                        .get("status")
                        .asText())
                .as("the other tenant's message is untouched")
                .isEqualTo("SCHEDULED");
        signOut();
    }

    @Test
    void aDeadMessageIsListedSupportCannotRedriveItAndAnAdminRedrivesItUntilSent() {
        SERVICE.simulator()
                .updateConfig(NORMAL.toBuilder().transientErrorRate(1.0).build());
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitAdvancing(
                SERVICE,
                Duration.ofSeconds(2),
                Duration.ofSeconds(90),
                () -> assertThat(SERVICE.api()
                                .get("/v1/messages/" + id, "support-1")
                                .json()
                                .get("status")
                                .asText())
                        .isEqualTo("DEAD"));

        signIn("support-1", "support");
        click(By.id("tab-dead"));
        WebElement dead = awaitReloading(By.id("dead-reload"), row("dead-row", id));
        assertThat(dead.getText()).contains("DEAD", "attempt limit 4");
        assertThat(browser.findElements(By.cssSelector("[data-test=redrive]")))
                .as("no re-drive for support")
                .isEmpty();
        dead.findElement(By.cssSelector("[data-test=open]")).click();
        wait.until(d -> field("status").equals("DEAD"));
        assertThat(eventTypes()).contains("ATTEMPT_FAILED").last().isEqualTo("DEAD");
        assertThat(browser.findElement(By.id("message-actions")).findElements(By.tagName("button")))
                .isEmpty();

        SERVICE.simulator().updateConfig(NORMAL);
        signOut();
        signIn("admin-1", "admin");
        click(By.id("tab-dead"));
        awaitReloading(By.id("dead-reload"), row("dead-row", id))
                .findElement(By.cssSelector("[data-test=open]"))
                .click();
        wait.until(d -> field("status").equals("DEAD"));
        click(By.cssSelector("#message-actions [data-test=redrive]"));

        wait.until(d -> text("notice").startsWith("Message " + id + " re-driven"));
        wait.until(d -> field("status").equals("SENT"));
        assertThat(eventTypes()).containsSubsequence("DEAD", "REDRIVEN", "CLAIMED", "PROVIDER_ACCEPTED");
        assertThat(texts(By.cssSelector("[data-test=event][data-type=REDRIVEN]"), WebElement::getText))
                .as("the timers' re-drives, then the admin's")
                .last()
                .asString()
                .contains("admin:ops-admin", "support re-drove it");
        assertThat(SERVICE.api()
                        .get("/v1/messages/" + id, "admin-1")
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("SENT");
    }

    @Test
    void aCompactedMessageShowsItsWholeHistoryInTheTimeline() throws SQLException {
        String reference = "console-" + UUID.randomUUID();
        ApiResponse submitted = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"hello\",\"reference\":\"" + reference
                                + "\"}");
        assertThat(submitted.status()).as(submitted.raw()).isEqualTo(202);
        String id = submitted.json().get("id").asText();
        Messages.awaitStatus(SERVICE, id, "SENT", WAIT);
        compactAllButTheLastEvent(id);

        signIn("support-1", "support");
        type("search-reference", reference);
        click(By.id("search-submit"));
        wait.until(ExpectedConditions.elementToBeClickable(row("result-row", id)))
                .findElement(By.cssSelector("[data-test=open]"))
                .click();
        wait.until(d ->
                !d.findElements(By.cssSelector("#timeline [data-test=event]")).isEmpty());
        // The API opens compaction snapshots back into the events they folded: the timeline reads as before compaction.
        assertThat(eventTypes())
                .containsSubsequence("ACCEPTED", "PUBLISHED", "CLAIMED", "PROVIDER_ACCEPTED")
                .doesNotContain("COMPACTED");
        assertThat(field("status")).isEqualTo("SENT");
    }

    @Test
    void parkedInputShowsItsRawBodyAsTextAndAnAdminDiscardsIt() {
        String raw = "stat:DELIVRD <b id=\"injected\">not json</b> & <script>document.title='x'</script> "
                + UUID.randomUUID();
        long parkedId = parkSignedCallback(raw, "application/json");

        signIn("support-1", "support");
        click(By.id("tab-parked"));
        WebElement row = awaitReloading(By.id("parked-reload"), row("parked-row", Long.toString(parkedId)));
        assertThat(row.findElement(By.cssSelector("[data-test=parked-body]")).getText())
                .isEqualTo(raw);
        assertThat(row.findElement(By.cssSelector("[data-test=parked-reason]")).getText())
                .isEqualTo("body is not JSON");
        assertThat(row.findElement(By.cssSelector("[data-test=parked-resolution]"))
                        .getText())
                .isEqualTo("unresolved");
        assertThat(browser.findElements(By.id("injected")))
                .as("the raw body is text, not markup")
                .isEmpty();
        assertThat(browser.getTitle()).isEqualTo("sendlog support console");

        signOut();
        signIn("admin-1", "admin");
        click(By.id("tab-parked"));
        row = awaitReloading(By.id("parked-reload"), row("parked-row", Long.toString(parkedId)));
        row.findElement(By.cssSelector("[data-test=resolve-note]")).sendKeys("garbage from a test");
        row.findElement(By.cssSelector("[data-test=resolve-discard]")).click();
        wait.until(ExpectedConditions.textToBe(By.id("notice"), "Parked input " + parkedId + " resolved: discard."));

        JsonNode all = SERVICE.api()
                .get("/v1/admin/parked?all=true&limit=500", "support-1")
                .json()
                .get("items");
        assertThat(all).anySatisfy(p -> {
            assertThat(p.get("id").asLong()).isEqualTo(parkedId);
            assertThat(p.get("resolution").asText()).isEqualTo("discard: garbage from a test by admin:ops-admin");
        });
        click(By.id("parked-all"));
        wait.until(ExpectedConditions.textToBe(
                By.cssSelector(rowCss("parked-row", Long.toString(parkedId)) + " [data-test=parked-resolution]"),
                "discard: garbage from a test by admin:ops-admin"));
    }

    /**
     * Issue 31: a RESOLVED event links to the parked row it came from (the list starts there, the row marked and
     * focused, the address shareable), and that row links back to the message.
     */
    @Test
    void aResolvedEventLinksToItsParkedRowAndTheRowBackToItsMessage() {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", WAIT);
        String raw = "stat:DELIVRD, a receipt only a person can read " + UUID.randomUUID();
        long parkedId = parkSignedCallback(raw, "text/plain");
        ApiResponse resolved = SERVICE.api()
                .post(
                        "/v1/admin/parked/" + parkedId + "/resolve",
                        "admin-1",
                        "{\"action\":\"apply\",\"status\":\"DELIVERED\",\"messageId\":\"" + id
                                + "\",\"note\":\"read by hand\"}");
        assertThat(resolved.status()).as(resolved.raw()).isEqualTo(200);

        signInAt(SERVICE.api().baseUrl() + "/console/#message/" + id, "support-1", "support");
        wait.until(d -> eventTypes().contains("RESOLVED"));
        click(By.cssSelector("[data-test=open-parked][data-id='" + parkedId + "']"));
        WebElement row =
                wait.until(ExpectedConditions.visibilityOfElementLocated(row("parked-row", Long.toString(parkedId))));
        assertThat(row.getAttribute("class")).contains("marked");
        assertThat(browser.switchTo().activeElement().getAttribute("data-id")).isEqualTo(Long.toString(parkedId));
        assertThat(browser.getCurrentUrl()).endsWith("#parked/" + parkedId);
        assertThat(browser.findElement(By.cssSelector("[data-test=parked-row]")).getAttribute("data-id"))
                .as("the list starts at the row")
                .isEqualTo(Long.toString(parkedId));

        row.findElement(By.cssSelector("[data-test=open]")).click();
        wait.until(d -> field("id").equals(id));
        assertThat(field("status")).isEqualTo("DELIVERED");
    }

    /**
     * A dead status webhook delivery (issue 27) is listed with its last outcome for support, who cannot re-drive it; an
     * admin re-drives it and it is owed again. The delivery is made dead here by writing its row as the worker would
     * after 24 h of failures: the worker's own path is WebhookDeliveryTest's; this one is the console's.
     */
    @Test
    void aDeadWebhookDeliveryIsListedAndAnAdminRedrivesIt() throws SQLException {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        String eventId = id + ":1";
        try (var c = SERVICE.dataSource().getConnection();
                var st = c.prepareStatement(
                        "INSERT INTO webhook_deliveries "
                                + "(message_id, seq, tenant, status, event_at, owed_since, state, attempts, lease, due_at, last_outcome, done_at) "
                                + "VALUES (?::uuid, 1, 'acme', 'ACCEPTED', now(), now(), 2, 31, 31, NULL, 'HTTP 503: <b>down</b>; now DEAD', now())")) {
            st.setString(1, id);
            st.executeUpdate();
        }
        signIn("support-1", "support");
        click(By.id("tab-webhooks"));
        WebElement dead = awaitReloading(By.id("webhooks-reload"), row("webhook-row", eventId));
        assertThat(dead.findElement(By.cssSelector("[data-test=webhook-outcome]"))
                        .getText())
                .as("shown as text")
                .isEqualTo("HTTP 503: <b>down</b>; now DEAD");
        assertThat(dead.getText()).contains("ACCEPTED", "acme", "31");
        assertThat(browser.findElements(By.cssSelector("[data-test=webhook-redrive]")))
                .as("no re-drive for support")
                .isEmpty();
        signOut();

        signIn("admin-1", "admin");
        click(By.id("tab-webhooks"));
        awaitReloading(By.id("webhooks-reload"), row("webhook-row", eventId))
                .findElement(By.cssSelector("[data-test=webhook-redrive]"))
                .click();
        wait.until(d -> text("notice").startsWith("Webhook delivery " + eventId + " owed again"));
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM webhook_deliveries WHERE message_id = '" + id
                                + "' AND state = 0 AND due_at IS NOT NULL"))
                .isEqualTo(1);
    }

    @Test
    void anAdminSuppressesAndRemovesARecipientSupportOnlyReadsAndTheChangesShowWhoAndWhy() {
        String to = Messages.recipient();
        signIn("admin-1", "admin");
        click(By.id("tab-suppressions"));
        type("suppressions-tenant", "acme");
        click(By.id("suppressions-load"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("suppress-form")));
        type("suppress-recipient", to);
        type("suppress-reason", "user replied STOP <b id=\"injected\">x</b>");
        click(By.id("suppress-submit"));
        WebElement row = wait.until(ExpectedConditions.visibilityOfElementLocated(row("suppression-row", to)));
        assertThat(row.findElement(By.cssSelector("[data-test=suppression-reason]"))
                        .getText())
                .isEqualTo("user replied STOP <b id=\"injected\">x</b>");
        assertThat(row.findElement(By.cssSelector("[data-test=suppression-actor]"))
                        .getText())
                .isEqualTo("admin:ops-admin");
        assertThat(browser.findElements(By.id("injected")))
                .as("text, not markup")
                .isEmpty();
        assertThat(SERVICE.api()
                        .get("/v1/suppressions", "client-a")
                        .json()
                        .get("items")
                        .findValuesAsText("recipient"))
                .contains(to);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("suppression-changes"), "ADD by admin:ops-admin"));

        signOut();
        signIn("support-1", "support");
        click(By.id("tab-suppressions"));
        type("suppressions-tenant", "acme");
        click(By.id("suppressions-load"));
        row = wait.until(ExpectedConditions.visibilityOfElementLocated(row("suppression-row", to)));
        assertThat(browser.findElement(By.id("suppress-form")).isDisplayed())
                .as("support may not change it")
                .isFalse();
        assertThat(row.findElements(By.cssSelector("[data-test=unsuppress]"))).isEmpty();

        signOut();
        signIn("admin-1", "admin");
        click(By.id("tab-suppressions"));
        type("suppressions-tenant", "acme");
        click(By.id("suppressions-load"));
        row = wait.until(ExpectedConditions.visibilityOfElementLocated(row("suppression-row", to)));
        row.findElement(By.cssSelector("[data-test=unsuppress-reason]")).sendKeys("user replied START");
        row.findElement(By.cssSelector("[data-test=unsuppress]")).click();
        wait.until(ExpectedConditions.invisibilityOfElementLocated(row("suppression-row", to)));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("suppression-changes"), "REMOVE by admin:ops-admin: user replied START"));
        assertThat(SERVICE.api()
                        .get("/v1/suppressions", "client-a")
                        .json()
                        .get("items")
                        .findValuesAsText("recipient"))
                .doesNotContain(to);
    }

    @Test
    void theConsoleIsServedBesideTheApiWhichKeepsItsPaths() {
        ApiResponse page = SERVICE.api().get("/console/", null);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.raw()).contains("sendlog support console");
        assertThat(SERVICE.api().get("/console/console.js", null).status()).isEqualTo(200);
        assertThat(SERVICE.api().get("/console/console.css", null).status()).isEqualTo(200);
        ApiResponse api = SERVICE.api().get("/v1/messages", null);
        assertThat(api.status()).isEqualTo(401);
        assertThat(api.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(SERVICE.api().get("/v1/messages", "support-1").status()).isEqualTo(200);

        // Without the slash the same page is served (not redirected): it names its assets by absolute paths.
        browser.get(SERVICE.api().baseUrl() + "/console");
        type("key", "support-1");
        click(By.id("sign-in"));
        wait.until(ExpectedConditions.textToBe(By.id("who"), "signed in as support"));
    }

    @Test
    void aWrongKeyIsRefusedWithTheProblemShown() {
        browser.get(SERVICE.api().baseUrl() + "/console/");
        type("key", "not-a-key");
        click(By.id("sign-in"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
        assertThat(text("error-title")).isEqualTo("401 Unauthorized");
        assertThat(text("error-detail")).isEqualTo("a valid key is required: Authorization: Bearer <key>");
        assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();

        // A search the API refuses: the problem's title, detail and field errors are shown.
        signIn("support-1", "support");
        ((org.openqa.selenium.JavascriptExecutor) browser)
                .executeScript("document.getElementById('search-since').type = 'text';");
        type("search-since", "yesterday");
        click(By.id("search-submit"));
        wait.until(ExpectedConditions.textToBe(By.id("error-title"), "400 Invalid request"));
        assertThat(text("error-detail")).isEqualTo("the search is invalid");
        assertThat(text("error-fields")).startsWith("since: must be an RFC 3339 UTC time");
    }

    // ---- page helpers ----

    /** Signs in and goes to the search view (staff open on the pipeline view, a client on its search). */
    private void signIn(String key, String role) {
        signInAt(SERVICE.api().baseUrl() + "/console/", key, role);
        if (!role.equals("client")) {
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("pipeline-stages")));
            click(By.id("tab-search"));
        }
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("search-form")));
    }

    /** Opens the console at this address (a link someone shared) and signs in there. */
    private void signInAt(String url, String key, String role) {
        browser.get(url);
        type("key", key);
        click(By.id("sign-in"));
        wait.until(ExpectedConditions.textToBe(By.id("who"), "signed in as " + role));
    }

    private void signOut() {
        click(By.id("sign-out"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("key")));
    }

    private void type(String id, String value) {
        WebElement input = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id(id)));
        input.clear();
        input.sendKeys(value);
    }

    private void click(By by) {
        wait.until(ExpectedConditions.elementToBeClickable(by)).click();
    }

    private String text(String id) {
        return browser.findElement(By.id(id)).getText();
    }

    /** Clicks reload until the row shows up (the DEAD list reads the status projection, which may lag). */
    private WebElement awaitReloading(By reload, By row) {
        return wait.until(d -> {
            List<WebElement> found = d.findElements(row);
            if (!found.isEmpty() && found.getFirst().isDisplayed()) {
                return found.getFirst();
            }
            d.findElement(reload).click();
            return null;
        });
    }

    /** Priority (issue 26): a high message is marked high in the result list and on its page; a normal one is not. */
    @Test
    void aHighMessageIsMarkedHighInTheListAndOnItsPage() {
        String to = Messages.recipient();
        String high = SERVICE.api()
                .post(
                        "/v1/messages",
                        "client-a",
                        "{\"to\":\"" + to + "\",\"body\":\"urgent\"," + "\"priority\":\"high\"}")
                .json()
                .get("id")
                .asText();
        String normal = Messages.submitOne(SERVICE, to);

        signIn("support-1", "support");
        type("search-to", to);
        click(By.id("search-submit"));
        WebElement highRow = wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", high)));
        WebElement normalRow = wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", normal)));
        assertThat(highRow.findElement(By.cssSelector("[data-test=priority]")).getText())
                .isEqualTo("high");
        assertThat(normalRow.findElements(By.cssSelector("[data-test=priority]")))
                .isEmpty();

        highRow.findElement(By.cssSelector("[data-test=open]")).click();
        wait.until(d -> field("id").equals(high));
        assertThat(field("priority")).isEqualTo("high");
        click(By.id("message-back"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(row("result-row", normal)))
                .findElement(By.cssSelector("[data-test=open]"))
                .click();
        wait.until(d -> field("id").equals(normal));
        assertThat(field("priority"))
                .as("no priority field for a normal message")
                .isEmpty();
    }

    private static By row(String test, String id) {
        return By.cssSelector(rowCss(test, id));
    }

    private static String rowCss(String test, String id) {
        return "tr[data-test=" + test + "][data-id='" + id + "']";
    }

    /** A field of the open message; "" while the page has not shown it yet. */
    /** A field of the open message; read again when the page re-renders it under the test's hands. */
    /** A time field of the open message as the API gave it (the page shows it in the browser's zone). */
    private String fieldTime(String name) {
        WebElement time = browser.findElement(By.cssSelector("#message-fields dd[data-field=" + name + "] time"));
        assertThat(time.getAttribute("title")).isEqualTo(time.getAttribute("datetime") + " (UTC)");
        return time.getAttribute("datetime");
    }

    private String field(String name) {
        for (int i = 0; ; i++) {
            try {
                List<WebElement> dd =
                        browser.findElements(By.cssSelector("#message-fields dd[data-field=" + name + "]"));
                return dd.isEmpty() ? "" : dd.getFirst().getText();
            } catch (org.openqa.selenium.StaleElementReferenceException rerendered) {
                if (i >= 5) {
                    throw rerendered;
                }
            }
        }
    }

    /** The last event of this type on the open message's timeline. */
    private WebElement event(String type) {
        List<WebElement> found =
                browser.findElements(By.cssSelector("#timeline [data-test=event][data-type=" + type + "]"));
        assertThat(found).as("a " + type + " event on the timeline").isNotEmpty();
        return found.getLast();
    }

    /** What the open message's timeline says of its last event of this type. */
    private String sentence(String type) {
        return event(type).findElement(By.cssSelector("[data-test=sentence]")).getText();
    }

    /** Every event of the open message's timeline in page order, folded ones included. */
    private List<String> eventTypes() {
        return texts(By.cssSelector("#timeline [data-test=event]"), e -> e.getAttribute("data-type"));
    }

    private List<String> texts(By by, Function<WebElement, String> of) {
        for (int i = 0; ; i++) {
            try {
                return browser.findElements(by).stream().map(of).toList();
            } catch (org.openqa.selenium.StaleElementReferenceException rerendered) {
                if (i >= 5) {
                    throw rerendered;
                }
            }
        }
    }

    /** Severe browser console entries, less the failed requests whose answers the page shows itself (401, 403, 404). */
    private List<String> pageErrors() {
        List<String> errors = new ArrayList<>();
        for (LogEntry entry : browser.manage().logs().get(LogType.BROWSER)) {
            if (entry.getLevel().intValue() >= Level.SEVERE.intValue()
                    && !entry.getMessage().contains("Failed to load resource")) {
                errors.add(entry.getMessage());
            }
        }
        return errors;
    }

    // ---- data helpers ----

    /** Posts {@code raw} as sim's signed callback, which the service cannot read, and returns the row it parked. */
    private static long parkSignedCallback(String raw, String contentType) {
        byte[] bytes = raw.getBytes(StandardCharsets.UTF_8);
        ApiResponse stored = SERVICE.api()
                .postBytes(
                        "/v1/callbacks/sim",
                        null,
                        contentType,
                        bytes,
                        "X-Signature",
                        CallbackSignature.sign("sim-secret", bytes));
        assertThat(stored.status()).as(stored.raw()).isEqualTo(200);
        return await().atMost(WAIT).until(() -> parkedIdOf(raw), n -> n > 0);
    }

    private static long parkedIdOf(String raw) {
        for (JsonNode p : SERVICE.api()
                .get("/v1/admin/parked?limit=500", "support-1")
                .json()
                .get("items")) {
            if (raw.equals(p.path("body").asText())) {
                return p.get("id").asLong();
            }
        }
        return 0;
    }

    /**
     * Does what compaction will do to a finished message: its events but the last are replaced by one COMPACTED
     * snapshot that lists them (its acceptance and publication included) and takes the seq of the last one it holds.
     * Returns how many it folded.
     */
    private static int compactAllButTheLastEvent(String id) throws SQLException {
        UUID messageId = UUID.fromString(id);
        EventStore store = EventStore.of(SERVICE.dataSource());
        MessageDetails message = new MessageReader(DSL.using(SERVICE.dataSource(), SQLDialect.POSTGRES), store)
                .find(messageId)
                .orElseThrow();
        List<StoredEvent> events = message.events();
        assertThat(events).hasSizeGreaterThan(2);
        List<StoredEvent> folded = events.subList(0, events.size() - 1);
        StoredEvent last = folded.getLast();
        try (Connection c = SERVICE.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement delete =
                    c.prepareStatement("DELETE FROM message_events WHERE message_id = ? AND seq <= ?")) {
                delete.setObject(1, messageId);
                delete.setInt(2, last.seq());
                delete.executeUpdate();
            }
            new LogFixtures(SERVICE.dataSource())
                    .append(
                            c,
                            (short) 0,
                            store.rows()
                                    .toRow(messageId, last.seq(), "compactor", last.at(), new Compacted(folded), null));
            c.commit();
        }
        return folded.size();
    }

    private static void deleteTree(Path root) throws IOException {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Debian's chromium and chromium-driver must be there: when they are not, the class fails with how to install
     * them, or is skipped with that message when {@code -Dsendlog.console.optional=true}. Checked before the
     * service starts.
     */
    static final class Chromium implements ExecutionCondition, BeforeAllCallback {
        private static String missing() {
            List<String> missing = Stream.of(CHROMIUM, CHROMEDRIVER)
                    .filter(p -> !Files.isExecutable(p))
                    .map(Path::toString)
                    .toList();
            return missing.isEmpty()
                    ? null
                    : "the console's browser tests need Chromium and its driver, missing: " + missing
                            + "; install them with: apt-get install -y chromium chromium-driver"
                            + " (or run with -Dsendlog.console.optional=true to skip these tests)";
        }

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            String missing = missing();
            return missing != null && Boolean.getBoolean("sendlog.console.optional")
                    ? ConditionEvaluationResult.disabled(missing)
                    : ConditionEvaluationResult.enabled("chromium is required");
        }

        @Override
        public void beforeAll(ExtensionContext context) {
            String missing = missing();
            if (missing != null) {
                throw new IllegalStateException(missing);
            }
        }
    }
}
