package io.tributary.itests.failover;

import java.io.IOException;

import jakarta.ejb.EJB;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code GET /received}: the deliveries so far, one line each ({@link Received}). */
@WebServlet("/received")
public class ReceivedServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @EJB
    private Received received;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        for (String line : received.deliveries()) {
            response.getWriter().append(line).append('\n');
        }
    }
}
