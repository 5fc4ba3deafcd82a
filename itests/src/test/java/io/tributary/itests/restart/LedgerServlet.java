package io.tributary.itests.restart;

import java.io.IOException;

import jakarta.ejb.EJB;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code GET /ledger}: the deliveries so far, one per line ({@link Ledger}); {@code POST /ledger}: opens the gate
 * (204).
 */
@WebServlet("/ledger")
public class LedgerServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @EJB
    private Ledger ledger;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        for (String line : ledger.deliveries()) {
            response.getWriter().append(line).append('\n');
        }
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) {
        ledger.open();
        response.setStatus(HttpServletResponse.SC_NO_CONTENT);
    }
}
