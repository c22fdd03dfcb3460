"""Static files travel compressed when the browser accepts it; pages do not."""


def test_static_modules_are_gzipped_and_pages_are_not(client):
    response = client.get(
        "/static/vendor/d3/d3.min.js", HTTP_ACCEPT_ENCODING="gzip, deflate"
    )
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] == "gzip"
    body = b"".join(response.streaming_content)
    assert len(body) < 120_000  # 279,706 bytes uncompressed
    page = client.get("/", HTTP_ACCEPT_ENCODING="gzip")
    assert "Content-Encoding" not in page.headers


def test_a_client_that_does_not_accept_gzip_gets_plain_bytes(client):
    response = client.get("/static/vendor/d3/d3.min.js")
    assert "Content-Encoding" not in response.headers
