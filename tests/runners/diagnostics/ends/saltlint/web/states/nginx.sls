nginx:
  pkg.installed: []
  file.managed:
    - name: /etc/nginx/nginx.conf
    - source: salt://nginx/nginx.conf
    - mode: 644
  service.running:
    - enable: True
    - watch:
      - file: nginx

site:
  file.managed:
    - name: /srv/www/index.html
    - contents: "served by {{grains['host']}}"
